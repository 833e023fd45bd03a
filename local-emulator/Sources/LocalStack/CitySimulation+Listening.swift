import Foundation
import HyperTrackAPI
import NIOHTTP1
import Synchronization

extension CitySimulation {
    /// What a pushed driver is doing: waiting for offers, or on a ride (and how far it got).
    struct Shift: Sendable {
        var order: String?
        var acceptedAt: ContinuousClock.Instant?
        var measured = false
        /// The last action sent for the ride (`start`, `complete`), so a repeated status does not repeat it.
        var lastAction: String?
        /// When the ride's status was last confirmed (an event or a read), for the fallback read.
        var confirmedAt = ContinuousClock.now
        var answered = Set<String>()
    }

    /// An event as the driver's phone received it: when its bytes arrived, and for `offer.new` the offer read from
    /// it.
    struct Arrival: Sendable {
        var event: ServerSentEvent
        var instant: ContinuousClock.Instant
        var offer: Offer?
    }

    /// An offer as the app shows it: until its `expires_at` (the server's, in whole seconds) or until an
    /// `offer.closed` for its order arrives (another driver took it, the next round closed it, the rider cancelled).
    struct Offer: Sendable {
        var orderID: String
        var expiresAt: Date?

        /// The `offer.new` event's offer.
        /// - Throws: The decoding error when its data holds none (the phone counts it as an error).
        init(_ event: ServerSentEvent) throws {
            struct Body: Decodable {
                struct Order: Decodable { var id: String }
                var order: Order
                var expires_at: Date?
            }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let body = try decoder.decode(Body.self, from: Data(event.data.utf8))
            self.orderID = body.order.id
            self.expiresAt = body.expires_at
        }

        /// Why the app no longer shows it: the `offer.closed` reason (`taken`, `expired`, `cancelled`), or
        /// `expired on the app` when its `expires_at` passed first; `nil` while it is shown.
        func gone(closed: ClosedOffers) -> String? {
            if let reason = closed.reason(self.orderID) { return reason }
            if let expiresAt, Date() >= expiresAt { return "expired on the app" }
            return nil
        }
    }

    /// The orders whose offers the server closed, with the reason, as the phone learned them: written by the
    /// stream's reader as the events arrive, read by the driver before and after thinking (the closing event waits
    /// in the queue behind the offer it closes).
    final class ClosedOffers: Sendable {
        private let reasons = Mutex<[String: String]>([:])
        func insert(_ id: String, reason: String) { self.reasons.withLock { $0[id] = reason } }
        func reason(_ id: String) -> String? { self.reasons.withLock { $0[id] } }
    }

    /// A driver's shift as the app lives it: hold `GET /v1/events` and act on what it pushes.
    ///
    /// The phone (``receive(_:token:events:into:closed:)``) reads the stream as its bytes arrive: an offer is
    /// recorded as the order's sighting then, and a closed offer is noted. The driver (this task) acts on the events
    /// one at a time, in their order: `offer.new` is answered after a think time (ignore, decline or accept, from the
    /// driver's seeded stream) unless the app no longer shows it (expired or closed, before or during the think:
    /// counted, not answered); on a ride, the order's `order.status` events drive the steps (`REACHED_PICKUP` →
    /// start, `REACHED_DROPOFF` → complete). Should a ride's status go quiet for
    /// ``Configuration/rideCheckInterval``, the next heartbeat reads the order once (an app's safety net; it should
    /// never be what moves a ride).
    ///
    /// The two were one loop until the 30th session: the stream was not read while its driver thought, so an offer
    /// that arrived during a think was "seen" only after it (its booking → offer time included another order's think
    /// time), and the driver then answered offers that had expired meanwhile, each a doomed accept on the apps'
    /// shared connections. In the 29th session's first chaos run that fed itself: 36,512 rounds for 4,000 orders,
    /// booking → offer p50 13 s, 59,375 accepts that waited more than 10 s for a connection.
    func listen(_ driver: Driver, token: String, api: SimulationClient, events: EventStreamClient) async {
        let (arrivals, phone) = AsyncStream.makeStream(of: Arrival.self)
        let closed = ClosedOffers()
        await withDiscardingTaskGroup { group in
            group.addTask {
                await self.receive(driver, token: token, events: events, into: phone, closed: closed)
                phone.finish()
            }
            var random = SeededGenerator(seed: self.configuration.seed, stream: 1000 + UInt64(driver.index))
            var shift = Shift()
            for await arrival in arrivals {
                do {
                    try await self.handle(
                        arrival,
                        shift: &shift,
                        random: &random,
                        closed: closed,
                        token: token,
                        api: api
                    )
                } catch {
                    if Task.isCancelled { break }
                    self.recorder.error("driver \(driver.index): \(error)")
                }
            }
            group.cancelAll()
        }
    }

    /// A stream that failed is reopened after an exponential back-off with full jitter, as an app does: a random wait
    /// up to 0.5 s, doubling with each failure in a row to 8 s, back to 0.5 s once a stream delivers an event. With a
    /// fixed second (until the 33rd session) the 10,000 phones whose streams the API's restart ended all retried
    /// together every second. That session's chaos runs (BENCHMARKS.md): with the fixed second 40,510 stream connects
    /// timed out and 952 bookings could not connect (CH1); with the back-off none timed out and 201 bookings waited too
    /// long for a connection (CH2). Both cities still stood nearly still for about three minutes after PostgreSQL's
    /// crash: the back-off is not what that waited for. It was AsyncHTTPClient's pool-wide retry of failed connects
    /// (36th session; see `EventStreamClient.init`).
    static let reconnectFirstCap = 0.5
    static let reconnectLastCap = 8.0

    /// The phone's side of a driver's stream: reads it as its bytes arrive and hands each event to the driver. A
    /// stream the server ends is reopened after the last event id seen (nothing is missed).
    func receive(
        _ driver: Driver,
        token: String,
        events: EventStreamClient,
        into phone: AsyncStream<Arrival>.Continuation,
        closed: ClosedOffers
    ) async {
        var lastEventID: String?
        var opened = false
        var random = SeededGenerator(seed: self.configuration.seed, stream: 3_000_000 + UInt64(driver.index))
        var cap = Self.reconnectFirstCap
        while !Task.isCancelled {
            do {
                try await self.recorder.activity.during("a driver's event stream") {
                    try await events.listen(token: token, lastEventID: lastEventID) { event, arrived in
                        cap = Self.reconnectFirstCap
                        if !opened {
                            opened = true
                            self.recorder.streamOpened()
                        }
                        if let id = event.id { lastEventID = id }
                        var offer: Offer?
                        switch event.name {
                        case "offer.new":
                            do {
                                let new = try Offer(event)
                                self.recorder.offerSeen(new.orderID, at: arrived)
                                offer = new
                            } catch {
                                self.recorder.error("driver \(driver.index): offer.new without an order: \(error)")
                            }
                        case "offer.closed":
                            // A closing the app cannot read leaves the offer shown until it expires: counted.
                            do {
                                struct Closed: Decodable {
                                    var order_id: String?
                                    var reason: String?
                                }
                                let body = try JSONDecoder().decode(Closed.self, from: Data(event.data.utf8))
                                if let order = body.order_id {
                                    closed.insert(order, reason: body.reason ?? "closed")
                                } else {
                                    self.recorder.error("driver \(driver.index): offer.closed without an order: \(event.data)")
                                }
                            } catch {
                                self.recorder.error("driver \(driver.index): unreadable offer.closed: \(error)")
                            }
                        default:
                            break
                        }
                        phone.yield(Arrival(event: event, instant: arrived, offer: offer))
                    }
                }
            } catch {
                if Task.isCancelled { return }
                self.recorder.error("driver \(driver.index) stream: \(error)")
                // The app's reconnect back-off: its own clock.
                try? await Task.sleep(for: .seconds(Double.random(in: 0...cap, using: &random)))
                cap = min(cap * 2, Self.reconnectLastCap)
            }
        }
    }

    /// One pushed event of a driver's stream, acted on by the driver.
    func handle(
        _ arrival: Arrival,
        shift: inout Shift,
        random: inout SeededGenerator,
        closed: ClosedOffers,
        token: String,
        api: SimulationClient
    ) async throws {
        let c = self.configuration
        let event = arrival.event
        switch event.name {
        case "offer.new":
            // One the phone could not read (counted there).
            guard let offer = arrival.offer else { return }
            guard shift.order == nil, shift.answered.insert(offer.orderID).inserted else { return }
            let roll = Double.random(in: 0..<1, using: &random)
            let think = Double.random(in: c.thinkSeconds, using: &random)
            if roll < c.ignoreShare { return }
            // Gone from the app before the driver got to it (the offers before it took their thinks).
            if let reason = offer.gone(closed: closed) { return self.recorder.offerGone(reason) }
            // The simulated driver's think time: the clock of the behaviour being simulated.
            try await Task.sleep(for: .seconds(think))
            // Gone while the driver thought: there is nothing left to tap.
            if let reason = offer.gone(closed: closed) { return self.recorder.offerGone(reason) }
            let action = roll < c.ignoreShare + c.declineShare ? "decline" : "accept"
            let path = "/v1/orders/\(offer.orderID)/\(action)"
            guard let answer = try await Self.unlessLost({ try await api.send(.POST, path, token: token) }) else {
                return
            }
            // 409: the offer expired or another driver was first; both are part of the game.
            guard answer.status == 200 else {
                if answer.status != 409 { self.recorder.error("\(action): \(answer.status) \(answer.json)") }
                return
            }
            if action == "accept" {
                let accepted = ContinuousClock.now
                shift.order = offer.orderID
                shift.acceptedAt = accepted
                self.recorder.accepted(offer.orderID, at: accepted)
                shift.measured = false
                shift.lastAction = nil
                shift.confirmedAt = ContinuousClock.now
            }
        case "order.status":
            let body = try JSONDecoder().decode(OrderStatusEvent.self, from: Data(event.data.utf8))
            guard let order = body.order?.id, let status = body.order?.status else { return }
            if shift.order == nil, !["NEW", "COMPLETED", "CANCELLED"].contains(status) {
                // An accept that went through though its reply was lost (the API crashed with PostgreSQL's restart
                // after the commit): the driver's stream shows only its own rides' statuses, so this one is ours,
                // as the app would learn. Without this the driver ignored its ride for good: a chaos test run
                // ended with one order at `REACHED_PICKUP`, accepted 0.4 s before the API's crash. Not measured
                // (the accept's time is unknown).
                shift.order = order
                shift.measured = true
                shift.lastAction = nil
                shift.confirmedAt = ContinuousClock.now
            }
            guard order == shift.order else { return }
            try await self.step(status, at: arrival.instant, shift: &shift, token: token, api: api)
        default:
            // A heartbeat (or an event of no interest): the safety net for a ride whose status went quiet.
            guard let order = shift.order, ContinuousClock.now - shift.confirmedAt >= c.rideCheckInterval else {
                return
            }
            let path = "/v1/orders/\(order)"
            guard let view = try await Self.unlessLost({ try await api.send(.GET, path, token: token) }) else {
                return
            }
            if let status = view.json["status"].stringValue {
                try await self.step(status, at: ContinuousClock.now, shift: &shift, token: token, api: api)
            }
        }
    }

    /// The ride's status as the driver learned it: measure accept → first status past `ACCEPTED`, start at the
    /// pickup, complete at the drop-off, and go back to waiting once the order is final.
    func step(
        _ status: String,
        at instant: ContinuousClock.Instant,
        shift: inout Shift,
        token: String,
        api: SimulationClient
    ) async throws {
        guard let order = shift.order else { return }
        shift.confirmedAt = ContinuousClock.now
        if !shift.measured && status != "ACCEPTED", let accepted = shift.acceptedAt {
            shift.measured = true
            self.recorder.pickingUp(after: SimulationClient.milliseconds(instant - accepted))
        }
        let action: String
        switch status {
        case "COMPLETED", "CANCELLED":
            if status == "COMPLETED" { self.recorder.completed() }
            let answered = shift.answered
            shift = Shift()
            shift.answered = answered
            return
        case "REACHED_PICKUP": action = "start"
        case "REACHED_DROPOFF": action = "complete"
        default: return
        }
        guard shift.lastAction != action else { return }
        // Remembered only once the server said yes: under chaos a start or complete sent while the API restarted
        // failed, the step was marked done anyway, and the safety net's reads of `REACHED_*` then did nothing, so
        // the ride never ended (the chaos test's 1–5 unfinished rides of 200, all at `REACHED_*` since the
        // PostgreSQL restart). Sent again at the next status or safety-net read; a repeat of one that did commit is a
        // 409 and changes nothing. A 5xx or a lost connection is sent again at once, as the polling driver does.
        let reply = try await self.persistently {
            try await api.send(.POST, "/v1/orders/\(order)/\(action)", token: token)
        }
        guard reply.status == 200 else {
            self.recorder.error("\(action) \(order): \(reply.status) \(reply.json)")
            return
        }
        shift.lastAction = action
    }

    /// The reply of a request an event led to, or `nil` when it was lost on the way (the API or its database
    /// restarting; ``SimulationClient`` counted it): an app keeps its event stream open and acts again on a later
    /// event or heartbeat. Thrown out of the stream's handler, such a failure closed the stream: in the 21st
    /// session's chaos runs, from PostgreSQL's restart on, every failed safety-net read (the apps' shared
    /// connections all busy) closed a driver's stream (the error counts matched one for one, 991 and 991, 774 and
    /// 773 in a progress interval), and the reconnections added to the requests that were failing.
    static func unlessLost(_ send: () async throws -> StackAPI.Reply) async throws -> StackAPI.Reply? {
        do {
            return try await send()
        } catch {
            if error is CancellationError || Task.isCancelled { throw error }
            return nil
        }
    }
}
