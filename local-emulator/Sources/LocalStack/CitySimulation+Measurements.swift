import Foundation
import PostgresNIO

extension CitySimulation {
    /// Trigger lag of one function over the rides: commit (or a timer's due time) → the start of the transaction
    /// that marked the delivery done, from the runtime's `done` table (its `done_at` is that transaction's `now()`).
    /// It includes earlier attempts and their retries' waits, and not the last attempt's own run: nearly what
    /// `trigger-bench` calls lag (commit → handler start), later by the deliveries a lane ran before it in the same
    /// transaction (up to the runtime's 20 ms window).
    struct FunctionLag: Sendable {
        var function: String
        var count: Int
        var p50: Double
        var p99: Double
        var max: Double
    }

    /// What the database says about the rides, read once they are over.
    struct DatabaseMeasurements: Sendable {
        /// Arrival webhook stored → order `REACHED_*` written, in milliseconds, one per arrival of this run's orders.
        var arrivalToReached: [Double] = []
        /// Each order's row written and its first `offer.new` event written (their transactions' times), by order:
        /// the database's two points of ``CitySimulation/Report/offerSteps``.
        var offerWrites: [UUID: OfferWrites] = [:]
        var lags: [FunctionLag] = []
        var sizeBefore: Int64 = 0
        var sizeAfter: Int64 = 0
        /// The webhook acknowledgements of the rides as the emulator (the sender) timed them, in milliseconds.
        var webhookRoundTrips: [Double] = []
        /// The same acknowledgements timed on the emulator's event loop (request head written → reply's end read),
        /// without the emulator's own wait to resume its sending task.
        var webhookWireRoundTrips: [Double] = []
        /// The same acknowledgements as the API timed them (its `/metrics`, baseline to the end), when read.
        var apiWebhookTimes: APIWebhookTimes.State?
        /// The statements that took PostgreSQL the most time during the rides (`pg_stat_statements`), when the
        /// server loads it (`simulate`'s own stack does); `nil` otherwise.
        var statements: [StatementCost]?
    }

    /// An order's row and its first offer, as the database timed them (`now()` of their transactions), and when the
    /// server tracks commit timestamps (`simulate`'s own stack does), when the first offer's transaction committed
    /// and when the transaction that gave its event a position (the API's hub's sequencer) did.
    struct OfferWrites: Sendable {
        var order: Date
        var firstOffer: Date?
        var firstOfferCommitted: Date?
        var firstOfferSequenced: Date?
    }

    /// One statement's share of PostgreSQL's time.
    struct StatementCost: Sendable {
        var query: String
        var calls: Int
        var totalMilliseconds: Double
        var meanMilliseconds: Double
        var rows: Int
    }

    /// Starts `pg_stat_statements` counting from now; `false` when the server does not preload it (the local stack's
    /// PostgreSQL, a deployment's), which leaves the report without the table and the database untouched (the
    /// extension is created only where the server loads it: `pg_stat_statements_reset()` succeeds without the
    /// library, the view does not).
    func resetStatementStatistics() async -> Bool {
        do {
            let rows = try await self.database.query(
                "SELECT current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%'"
            )
            var loaded = false
            for row in rows {
                let value = try row.decode(Bool.self)
                loaded = value
            }
            guard loaded else { return false }
            try await self.database.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            try await self.database.query("SELECT pg_stat_statements_reset()")
            return true
        } catch {
            self.recorder.error("pg_stat_statements: \(String(reflecting: error))")
            return false
        }
    }

    /// The ten statements with the most execution time since ``resetStatementStatistics()``, the simulation's own
    /// reads left out.
    func topStatements() async throws -> [StatementCost] {
        let rows = try await self.database.query(
            """
            SELECT regexp_replace(query, '\\s+', ' ', 'g'), calls::int, total_exec_time, mean_exec_time, rows::int
            FROM pg_stat_statements
            WHERE query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%trigger_runtime.deliveries WHERE status%'
            ORDER BY total_exec_time DESC LIMIT 10
            """
        )
        var costs: [StatementCost] = []
        for row in rows {
            let (query, calls, total, mean, count) = try row.decode((String, Int, Double, Double, Int).self)
            costs.append(
                StatementCost(query: query, calls: calls, totalMilliseconds: total, meanMilliseconds: mean, rows: count)
            )
        }
        return costs
    }

    /// Samples the pending deliveries and the watched processes every ``Configuration/sampleInterval`` until
    /// cancelled (the rides' end).
    func sample(into sampler: SimulationSampler, from start: ContinuousClock.Instant) async {
        let c = self.configuration
        while !Task.isCancelled {
            sampler.sample(c.currentProcesses?() ?? c.processes)
            do {
                let pending = try await self.count(
                    "SELECT count(*)::int FROM trigger_runtime.deliveries WHERE status = 'ready'"
                )
                sampler.pending(pending, at: Self.seconds(ContinuousClock.now - start))
            } catch {
                if Task.isCancelled { return }
                self.recorder.error("sampling pending deliveries: \(error)")
            }
            // The sampling clock: a series over time is what is asked for.
            try? await Task.sleep(for: c.sampleInterval)
        }
    }

    /// Reads the API's `/metrics` every ``metricsReadInterval`` until cancelled (the rides' end), in a task of its
    /// own: inside the sampler's loop a reading that waited (the API restarting under chaos: up to the reading's
    /// 10 s timeout) held back that loop's process and pending-delivery samples as long.
    func read(_ times: APIWebhookTimes) async {
        while !Task.isCancelled {
            // The reading's clock: counts lost with a restarted API are at most one interval's.
            try? await Task.sleep(for: Self.metricsReadInterval)
            if Task.isCancelled { return }
            await times.read()
        }
    }

    /// How often the API's `/metrics` is read during the rides: often enough that a restarted API (chaos) loses
    /// little of its counts, rarely enough to cost it nothing measurable (a reading also counts pending deliveries
    /// in PostgreSQL).
    static let metricsReadInterval: Duration = .seconds(10)

    /// `pg_database_size` of the stack's database, in bytes.
    func databaseSize() async throws -> Int64 {
        let rows = try await self.database.query(
            "SELECT pg_database_size(current_database())::int8"
        )
        if let row = rows.first {
            let size = try row.decode(Int64.self)
            return size
        }
        return 0
    }

    /// When each of `orders` was written and its first `offer.new` event (the event log's time is the writing
    /// transaction's; an offer's row may be gone, taken or expired, its event stays), and when the server tracks
    /// commit timestamps, when that event's transaction and its position's committed.
    func offerWrites(orders: [String]) async throws -> [UUID: OfferWrites] {
        let ids = orders.compactMap(UUID.init(uuidString:))
        let tracked = try await self.database.query("SELECT current_setting('track_commit_timestamp') = 'on'")
        // Without the setting `pg_xact_commit_timestamp` fails the query: read NULLs instead.
        let commits =
            try tracked.first?.decode(Bool.self) == true
            ? "extract(epoch FROM pg_xact_commit_timestamp(e.xmin))::float8, "
                + "extract(epoch FROM pg_xact_commit_timestamp(p.xmin))::float8"
            : "NULL::float8, NULL::float8"
        let rows = try await self.database.query(
            """
            SELECT o.id, extract(epoch FROM o.created_at)::float8, f.written, f.committed, f.sequenced
            FROM orders o
            LEFT JOIN LATERAL (
                SELECT extract(epoch FROM e.created_at)::float8 AS written, \(unescaped: commits)
                FROM order_events e LEFT JOIN order_event_positions p ON p.event_id = e.id
                WHERE e.order_id = o.id AND e.kind = 'offer.new'
                ORDER BY e.created_at, e.id LIMIT 1
            ) f (written, committed, sequenced) ON true
            WHERE o.id = ANY(\(ids))
            """
        )
        var writes: [UUID: OfferWrites] = [:]
        for row in rows {
            let (id, order, offer, committed, sequenced) = try row.decode(
                (UUID, Double, Double?, Double?, Double?).self
            )
            writes[id] = OfferWrites(
                order: Date(timeIntervalSince1970: order),
                firstOffer: offer.map(Date.init(timeIntervalSince1970:)),
                firstOfferCommitted: committed.map(Date.init(timeIntervalSince1970:)),
                firstOfferSequenced: sequenced.map(Date.init(timeIntervalSince1970:))
            )
        }
        return writes
    }

    /// Arrival → `REACHED_*` for `orders`: each `destination_arrival` webhook event of one of their legs' trips (its
    /// first receipt), to the first `order.status` event of the order with the status that arrival leads to (the
    /// event log's time is the writing transaction's).
    func arrivalToReached(orders: [String]) async throws -> [Double] {
        let ids = orders.compactMap(UUID.init(uuidString:))
        let rows = try await self.database.query(
            """
            SELECT (extract(epoch FROM r.reached - a.received) * 1000)::float8
            FROM order_legs l
            JOIN LATERAL (
                SELECT min(w.received_at) AS received FROM webhook_events w
                WHERE w.trip_id = l.trip_id AND w.type = 'trip' AND w.value = 'destination_arrival'
            ) a ON a.received IS NOT NULL
            JOIN LATERAL (
                SELECT min(e.created_at) AS reached FROM order_events e
                WHERE e.order_id = l.order_id AND e.kind = 'order.status'
                  AND e.payload -> 'order' ->> 'status'
                      = CASE l.leg WHEN 'pickup' THEN 'REACHED_PICKUP' ELSE 'REACHED_DROPOFF' END
            ) r ON r.reached IS NOT NULL
            WHERE l.order_id = ANY(\(ids))
            """
        )
        var values: [Double] = []
        for row in rows {
            let value = try row.decode(Double.self)
            values.append(value)
        }
        return values
    }

    /// Trigger lag per function for deliveries done between `start` and `end` (the database's clock).
    func triggerLags(from start: Date, to end: Date) async throws -> [FunctionLag] {
        let rows = try await self.database.query(
            """
            SELECT function_name, count(*)::int,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::float8,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::float8,
                   max(ms)::float8
            FROM (
                SELECT function_name, extract(epoch FROM done_at - committed_at) * 1000 AS ms
                FROM trigger_runtime.done WHERE done_at >= \(start) AND done_at < \(end)
            ) d
            GROUP BY function_name ORDER BY function_name
            """
        )
        var lags: [FunctionLag] = []
        for row in rows {
            let (function, count, p50, p99, max) = try row.decode((String, Int, Double, Double, Double).self)
            lags.append(FunctionLag(function: function, count: count, p50: p50, p99: p99, max: max))
        }
        return lags
    }
}
