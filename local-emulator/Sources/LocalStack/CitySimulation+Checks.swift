import Foundation
import PostgresNIO

extension CitySimulation {
    /// One invariant: what it counts, and the count (must be 0).
    public struct Invariant: Sendable {
        public var name: String
        public var count: Int
    }

    /// Waits until the backend holds a fresh position (under a minute old, half what dispatch accepts) for every
    /// driver, so that the first bookings find drivers. Fresh, not just present: in a 10,000-driver run the
    /// emulator's clock hardly moved during the two minutes of set-up, every position was older than dispatch's two
    /// minutes when the first rides were booked, and the first 5 s of bookings (94 of 3,000) got no offer until their
    /// second round, 20 s later: the run's booking → offer p99.
    func awaitPositions(of drivers: [String], within timeout: Duration) async throws {
        let ids = drivers.compactMap(UUID.init(uuidString:))
        try await eventually(
            "a fresh position for each of the \(ids.count) drivers",
            timeout: timeout,
            every: .milliseconds(250)
        ) {
            let rows = try await self.database.query(
                """
                SELECT count(*)::int FROM driver_positions
                WHERE driver_id = ANY(\(ids)) AND recorded_at > now() - interval '60 seconds'
                """
            )
            if let row = rows.first {
                let count = try row.decode(Int.self)
                return count == ids.count
            }
            return false
        }
    }

    /// Waits until the emulated clock (moved by this simulation) has reached real time.
    ///
    /// **Why.** The backend judges a position's age by its own clock, and the positions carry the emulator's time:
    /// a clock behind real time means every phone's report arrives late. The set-up's wait for fresh positions
    /// passes with the clock up to a minute behind; in the 17th session's 4,000-ride runs the rides then began with
    /// the clock 30-60 s behind, the loaded clock ran at about real time, the positions passed dispatch's two
    /// minutes, and the rounds found nobody (3 rides of 4,000 completed in 210 s on the 14th session's build, which
    /// had completed 3,999 in 420 s when its set-up was half as long). With no rides yet the clock catches up in
    /// seconds; from then on a clock falling behind is the backend's measured ingestion, not the set-up's.
    func awaitClock(_ emulator: EmulatorControl, within timeout: Duration) async throws {
        try await eventually("the emulated clock to reach real time", timeout: timeout, every: .milliseconds(250)) {
            try await emulator.now() >= Date()
        }
    }

    /// Counts the booked orders that are final every half second, prints a progress line every
    /// ``Configuration/progressInterval``, and returns the booked orders once every booking was answered and every
    /// booked order is `COMPLETED` or `CANCELLED` (`true`), or at the deadline (`false`).
    func watch(from start: ContinuousClock.Instant) async throws -> (orders: [String], allFinal: Bool) {
        let c = self.configuration
        var lastLine = start
        var lastFailureLine: ContinuousClock.Instant?
        // Requests of the set-up (sign-ins) are not the rides' requests per second.
        let requestsBefore = self.recorder.snapshot.routes.values.reduce(0) { $0 + $1.count }
        var kindsAtLastLine = self.recorder.snapshot.errorKinds
        // The orders seen final (`COMPLETED` or `CANCELLED` stay so), each asked about no more, and every booked
        // order's id parsed once. Asking for all 12,000 orders' statuses at every look took PostgreSQL 41 ms (16.7
        // ms of it planning `= ANY` of 12,000 constants) twice a second, 50 s of its time in the 24th session's
        // 10-minute run, and parsing the ids a few per cent of `simulate`'s CPU: both taken from the stack under
        // measurement, on the same two cores.
        var finals: [UUID: String] = [:]
        var ids: [String: UUID] = [:]
        while true {
            let measured = self.recorder.snapshot
            let orders = Array(measured.bookedAt.keys)
            var open: [UUID] = []
            for order in orders {
                if ids[order] == nil { ids[order] = UUID(uuidString: order) }
                if let id = ids[order], finals[id] == nil { open.append(id) }
            }
            do {
                for (order, status) in try await self.finalStatuses(of: open) { finals[order] = status }
            } catch {
                // The database is away (PostgreSQL restarted under chaos): ask again at the next poll, saying so
                // once per progress interval (a run whose reads kept failing once went silent until its deadline).
                guard !Task.isCancelled, ContinuousClock.now - start < c.deadline else { throw error }
                if lastFailureLine.map({ ContinuousClock.now - $0 >= c.progressInterval }) ?? true {
                    lastFailureLine = ContinuousClock.now
                    self.say(
                        String(format: "[%5.0f s] ", Self.seconds(ContinuousClock.now - start))
                            + "the rides' statuses could not be read (asking again): \(String(reflecting: error))"
                    )
                }
                try await Task.sleep(for: .milliseconds(500))
                continue
            }
            let completed = finals.values.count { $0 == "COMPLETED" }
            let final = finals.count
            let answered = orders.count + measured.bookingsFailed == c.rides
            let now = ContinuousClock.now
            let over = now - start >= c.deadline
            if now - lastLine >= c.progressInterval || (answered && final == orders.count) || over {
                lastLine = now
                let seconds = max(Self.seconds(now - start), 0.001)
                let requests = measured.routes.values.reduce(0) { $0 + $1.count } - requestsBefore
                self.say(
                    String(
                        format: "[%5.0f s] rides %d/%d done (%d completed, %d cancelled), %d in flight, "
                            + "%.2f completed/s, %.0f requests/s, %d errors",
                        seconds,
                        final,
                        c.rides,
                        completed,
                        final - completed,
                        orders.count - final,
                        Double(completed) / seconds,
                        Double(requests) / seconds,
                        measured.errors
                    )
                )
                if let line = Self.newErrors(now: measured.errorKinds, before: kindsAtLastLine) { self.say(line) }
                kindsAtLastLine = measured.errorKinds
            }
            if answered && final == orders.count { return (orders, true) }
            if over {
                self.say("deadline: \(orders.count - final) rides not final after \(Self.seconds(c.deadline)) s")
                return (orders, false)
            }
            // The progress poll's clock: the rides' ends are other processes' writes, which signal nothing here.
            try await Task.sleep(for: .milliseconds(500))
        }
    }

    /// The errors counted since the last progress line, the three most frequent kinds first; `nil` when none.
    static func newErrors(now: [String: Int], before: [String: Int]) -> String? {
        var grown: [String: Int] = [:]
        for (kind, count) in now where count > before[kind, default: 0] { grown[kind] = count - before[kind, default: 0] }
        guard !grown.isEmpty else { return nil }
        let top = SimulationRecorder.mostFrequent(grown).prefix(3)
        return "        new errors: " + top.map { "\($0.count) × \($0.kind)" }.joined(separator: "; ")
            + (grown.count > 3 ? "; \(grown.count - 3) other kinds" : "")
    }

    /// Those of `orders` that are final now (`COMPLETED` or `CANCELLED`), with their status.
    func finalStatuses(of orders: [UUID]) async throws -> [(order: UUID, status: String)] {
        guard !orders.isEmpty else { return [] }
        let rows = try await self.database.query(
            "SELECT id, status FROM orders WHERE id = ANY(\(orders)) AND status IN ('COMPLETED', 'CANCELLED')"
        )
        return try rows.map { try $0.decode((UUID, String).self) }.map { (order: $0.0, status: $0.1) }
    }

    /// Once every ride is final, the worker still completes the last trips on HyperTrack: waits (the clock still
    /// moving) until none of this run's trips is active, or ``Configuration/settleDeadline`` (the invariant then
    /// counts what is left).
    func awaitTripsSettled(devices: Set<String>, emulator: EmulatorControl) async throws {
        // Each look exports the emulator's whole state (every device and trip of a city): once a second, not at
        // the 25 ms pace of `holds`.
        let deadline = ContinuousClock.now + self.configuration.settleDeadline
        while ContinuousClock.now < deadline {
            if try await emulator.trips().allSatisfy({ !devices.contains($0.device) || $0.status == "completed" }) {
                return
            }
            // The settle poll's clock: the worker's trip completions signal nothing here.
            try await Task.sleep(for: .seconds(1))
        }
    }

    /// The invariants, from the database and the emulator: each must be 0.
    func invariants(
        orders: [String],
        riders: [String],
        devices: Set<String>,
        emulator: EmulatorControl,
        outcomesBefore: [String: Int]
    ) async throws -> (invariants: [Invariant], trips: Int) {
        let ids = orders.compactMap(UUID.init(uuidString:))
        let riderIDs = riders.compactMap(UUID.init(uuidString:))
        let lost = try await self.count(
            """
            SELECT \(ids.count)::int - count(*)::int FROM orders WHERE id = ANY(\(ids))
                AND (status = 'COMPLETED' OR (status = 'CANCELLED' AND cancellation_reason IS NOT NULL))
            """
        )
        let stuck = try await self.count(
            """
            SELECT count(*)::int FROM orders
            WHERE rider_id = ANY(\(riderIDs)) AND status NOT IN ('COMPLETED', 'CANCELLED')
            """
        )
        let dead = try await self.count("SELECT count(*)::int FROM trigger_runtime.deliveries WHERE status = 'dead'")
        let trips = try await emulator.trips().filter { devices.contains($0.device) }
        let outcomes = try await emulator.webhookOutcomes()
        let refused = (outcomes["rejected"] ?? 0) - (outcomesBefore["rejected"] ?? 0)
        var perLeg: [String: Int] = [:]
        for trip in trips {
            guard let order = trip.order, let leg = trip.leg else { continue }
            perLeg["\(order) \(leg)", default: 0] += 1
        }
        let invariants = [
            Invariant(name: "rides lost (booked, neither completed nor cancelled with a reason)", count: lost),
            Invariant(
                name: "duplicate HyperTrack trips per leg (trips beyond the first of an order's leg)",
                count: perLeg.values.reduce(0) { $0 + $1 - 1 }
            ),
            Invariant(
                name: "trips left active on the emulator (this run's devices)",
                count: trips.filter { $0.status != "completed" }.count
            ),
            Invariant(name: "dead deliveries (the whole database)", count: dead),
            // A 4xx is a delivery HyperTrack never sends again: every event in it lost (a 1 MiB body bound once
            // lost 87 rides' arrivals this way, unseen by the other invariants but as rides that never ended).
            Invariant(
                name: "webhook deliveries the backend refused (4xx: never sent again, events lost)",
                count: refused
            ),
            Invariant(name: "orders stuck in a non-final state (this run's riders)", count: stuck),
        ]
        return (invariants, trips.count)
    }

    /// What the database and the emulator hold for up to `limit` of `orders` that are not final: one line each, for
    /// a failed run's report (under chaos a ride sometimes never ends; this says where it stopped). Each says when
    /// its status last changed relative to `ridesEnded` (the rides' deadline, or their end): these lines are read
    /// after the settle phase, and a ride still driving at the deadline that arrived during it read as
    /// "`REACHED_DROPOFF` for 61 s", like a stuck ride (13th session).
    func unfinished(
        orders: [String],
        ridesEnded: Date,
        emulator: EmulatorControl,
        limit: Int = 5
    ) async throws -> [String] {
        let ids = orders.compactMap(UUID.init(uuidString:))
        let rows = try await self.database.query(
            """
            SELECT o.id::text, o.status, o.dispatch_round,
                   round(extract(epoch FROM o.updated_at - \(ridesEnded)::timestamptz))::int8,
                   coalesce((SELECT string_agg(l.leg || ' ' || l.status || ' trip ' || l.trip_id
                                 || CASE WHEN l.arrived_at IS NULL THEN ', not arrived' ELSE ', arrived' END, '; '
                                 ORDER BY l.created_at)
                             FROM order_legs l WHERE l.order_id = o.id), 'no legs'),
                   coalesce((SELECT string_agg(d.function_name || ' ' || d.status || ' attempt ' || d.attempt
                                 || coalesce(' (' || left(d.last_error, 120) || ')', ''), '; ' ORDER BY d.id)
                             FROM trigger_runtime.deliveries d WHERE d.document_key = o.id::text), 'none'),
                   coalesce((SELECT string_agg(t.function_name || ' due in '
                                 || round(extract(epoch FROM t.due_at - now()))::text || ' s', '; ')
                             FROM trigger_runtime.timers t WHERE t.document_key = o.id::text), 'none'),
                   coalesce((SELECT string_agg(e.kind, ' → ' ORDER BY e.id)
                             FROM (SELECT id, kind FROM order_events WHERE order_id = o.id ORDER BY id DESC LIMIT 6) e),
                            'none')
            FROM orders o
            WHERE o.id = ANY(\(ids)) AND o.status NOT IN ('COMPLETED', 'CANCELLED')
            ORDER BY o.updated_at
            LIMIT \(limit)
            """
        )
        var lines: [String] = []
        var orderIDs: [String] = []
        for row in rows {
            let (id, status, round, changed, legs, deliveries, timers, events) = try row.decode(
                (String, String, Int, Int64, String, String, String, String).self
            )
            orderIDs.append(id)
            let since =
                changed <= 0
                ? "since \(-changed) s before the rides ended"
                : "since \(changed) s after the rides ended (it changed after the deadline)"
            lines.append(
                "order \(id): \(status) \(since) (round \(round)); legs: \(legs); deliveries: \(deliveries); "
                    + "timers: \(timers); last events: \(events)"
            )
        }
        guard !orderIDs.isEmpty else { return [] }
        let trips = try await emulator.trips().filter { trip in trip.order.map(orderIDs.contains) ?? false }
        for (index, id) in orderIDs.enumerated() {
            let mine = trips.filter { $0.order == id }.map { "\($0.leg ?? "?") \($0.id) \($0.status)" }
            lines[index] += "; emulator trips: " + (mine.isEmpty ? "none" : mine.joined(separator: ", "))
        }
        return lines
    }

    func count(_ query: PostgresQuery) async throws -> Int {
        let rows = try await self.database.query(query)
        if let row = rows.first {
            let count = try row.decode(Int.self)
            return count
        }
        return 0
    }
}
