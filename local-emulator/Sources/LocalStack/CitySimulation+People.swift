import Foundation
import HyperTrackAPI
import NIOHTTP1

extension CitySimulation {
    /// A driver's shift: ask for offers every ``Configuration/offerPollInterval`` (polling, not a push channel: the
    /// API has none yet), answer each new offer after a think time (ignore, decline or accept, drawn from the
    /// driver's own seeded stream), and drive an accepted ride to its end. Runs until cancelled.
    func work(_ driver: Driver, token: String, api: SimulationClient) async {
        let c = self.configuration
        var random = SeededGenerator(seed: c.seed, stream: 1000 + UInt64(driver.index))
        var answered = Set<String>()
        while !Task.isCancelled {
            do {
                let reply = try await api.send(.GET, "/v1/offers", token: token)
                let seen = ContinuousClock.now
                var ride: (order: String, acceptedAt: ContinuousClock.Instant)?
                for offer in reply.json["offers"].items {
                    guard let order = offer["id"].stringValue else { continue }
                    self.recorder.offerSeen(order, at: seen)
                    guard ride == nil, answered.insert(order).inserted else { continue }
                    let roll = Double.random(in: 0..<1, using: &random)
                    let think = Double.random(in: c.thinkSeconds, using: &random)
                    if roll < c.ignoreShare { continue }
                    // The simulated driver's think time: the clock of the behaviour being simulated.
                    try await Task.sleep(for: .seconds(think))
                    let action = roll < c.ignoreShare + c.declineShare ? "decline" : "accept"
                    let answer = try await self.persistently {
                        try await api.send(.POST, "/v1/orders/\(order)/\(action)", token: token)
                    }
                    // 409: the offer expired or another driver was first; both are part of the game.
                    guard answer.status == 200 else {
                        if answer.status != 409 { self.recorder.error("\(action): \(answer.status) \(answer.json)") }
                        continue
                    }
                    if action == "accept" {
                        let accepted = ContinuousClock.now
                        ride = (order, accepted)
                        self.recorder.accepted(order, at: accepted)
                    }
                }
                if let ride {
                    try await self.drive(ride.order, acceptedAt: ride.acceptedAt, token: token, api: api)
                } else {
                    // The driver app's offer poll (no push channel in this first slice): its clock.
                    try await Task.sleep(for: c.offerPollInterval)
                }
            } catch {
                if Task.isCancelled { return }
                self.recorder.error("driver \(driver.index): \(error)")
                try? await Task.sleep(for: c.offerPollInterval)
            }
        }
    }

    /// Reads the order until `REACHED_PICKUP`, starts the ride, reads until `REACHED_DROPOFF` and completes it (the
    /// emulator's clock moves the phone meanwhile). Records accept → first status past `ACCEPTED`. Every request is
    /// sent again after a 5xx or a lost connection (``persistently(_:)``), as an app retries, and a `start` or
    /// `complete` answered 409 (a retry of one that went through) just reads the order again: under chaos the
    /// driver must not forget a ride because the API was away for a moment.
    func drive(_ order: String, acceptedAt: ContinuousClock.Instant, token: String, api: SimulationClient) async throws
    {
        var measured = false
        while true {
            let view = try await self.persistently { try await api.send(.GET, "/v1/orders/\(order)", token: token) }
            let status = view.json["status"].stringValue ?? ""
            if !measured && view.status == 200 && status != "ACCEPTED" {
                measured = true
                self.recorder.pickingUp(after: SimulationClient.milliseconds(ContinuousClock.now - acceptedAt))
            }
            if status == "CANCELLED" || status == "COMPLETED" { return }
            let action = ["REACHED_PICKUP": "start", "REACHED_DROPOFF": "complete"][status]
            if let action {
                let reply = try await self.persistently {
                    try await api.send(.POST, "/v1/orders/\(order)/\(action)", token: token)
                }
                if reply.status == 200 {
                    if action == "complete" {
                        self.recorder.completed()
                        return
                    }
                    continue
                }
                if reply.status != 409 { self.recorder.error("\(action) \(order): \(reply.status) \(reply.json)") }
            }
            // The driver app's order poll: the ride's statuses are the worker's writes, which signal nothing here.
            try await Task.sleep(for: self.configuration.orderPollInterval)
        }
    }

    /// Books every ride on schedule (`index / rate` seconds after the start), each booking its own task so that a
    /// slow reply does not hold back the next; with `events` (``Configuration/riderStreams``) the task goes on as
    /// the rider following the ride (``follow(_:rider:token:events:)``).
    func book(
        _ bookings: [Booking],
        riders: [SignInFlow.Session],
        api: SimulationClient,
        events: EventStreamClient?
    ) async throws {
        let rate = self.configuration.rate
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (booking, rider) in zip(bookings, riders) {
                // The booking schedule's clock: booking n is made n / rate seconds after the start.
                try await Task.sleep(until: start + .seconds(Double(booking.index) / rate))
                group.addTask {
                    let body: JSONValue = [
                        "pickup": [
                            "lat": .number(booking.pickup.latitude), "lng": .number(booking.pickup.longitude),
                            "address": .string("pickup \(booking.index)"),
                        ],
                        "dropoff": [
                            "lat": .number(booking.dropoff.latitude), "lng": .number(booking.dropoff.longitude),
                            "address": .string("drop-off \(booking.index)"),
                        ],
                    ]
                    let sent = ContinuousClock.now
                    var booked: String?
                    do {
                        let reply = try await self.persistently {
                            try await api.send(.POST, "/v1/orders", json: body, token: rider.accessToken)
                        }
                        if reply.status == 201, let order = reply.json["id"].stringValue {
                            self.recorder.booked(order, at: sent)
                            booked = order
                        } else if reply.status == 409, let order = try await self.openOrder(of: rider.userID) {
                            // A retry of a booking that went through before its reply was lost.
                            self.recorder.booked(order, at: sent)
                            booked = order
                        } else {
                            self.recorder.bookingFailed("booking \(booking.index): \(reply.status) \(reply.json)")
                        }
                    } catch {
                        self.recorder.bookingFailed("booking \(booking.index): \(error)")
                    }
                    if let booked, let events {
                        await self.follow(booked, rider: booking.index, token: rider.accessToken, events: events)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
