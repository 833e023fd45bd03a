import Foundation
import Functions
import HyperTrackAPI
import HyperTrackEmulator
import LocalStack
import NIOHTTP1
import Testing

/// A whole ride against the HyperTrack emulator on its manual clock, with driving events injected into the dropoff
/// drive through the emulator's control API: the trip must show exactly those.
@Suite("Trips: injected driving events on the emulator show on the driver's trip", .timeLimit(.minutes(5)))
struct EmulatorTripTests {
    /// Advances the emulator 5 s at a time (5 locations at its 1 s tick) until `condition` holds.
    static func step(
        _ h: RideHarness,
        _ emulator: HyperTrackEmulator,
        until what: String,
        limit: Double = 1800,
        _ condition: @escaping @Sendable () async throws -> Bool
    ) async throws {
        var elapsed = 0.0
        while elapsed < limit {
            if try await condition() { return }
            await emulator.advanceClock(by: 5)
            elapsed += 5
            if (try? await h.eventually(what, timeout: .milliseconds(500), condition)) != nil { return }
        }
        throw RideHarness.TimedOut(what: "\(what) within \(Int(limit)) emulated seconds")
    }

    @Test("a hard brake at 40 s and 65 km/h from 90 s into the dropoff drive: exactly those two events, with stars")
    func injectedEvents() async throws {
        // 4.9 m/s (17.6 km/h) cruising: the emulator turns its grid's corners at once, which only counts as a hard
        // turn from 5 m/s (the detector's floor for bearings); 1 s ticks, as a phone reports while driving.
        let configuration = Backend.Configuration(webhook: .init(secret: EmulatorRideTests.secret))
        try await EmulatorRideTests.withEmulatorBackend(configuration, driverSpeed: 4.9, tickInterval: 1) {
            h,
            emulator,
            _ in
            await emulator.registerDevice(id: "DEV-EV", name: "phone", longitude: 13.405, latitude: 52.523)
            let rider = try await h.api.rider()
            let driver = try await h.api.driver(device: "DEV-EV")
            try await h.webhook([
                RideHarness.locationEvent(device: "DEV-EV", lat: 52.523, lng: 13.405, at: RideHarness.nowText())
            ])
            try await h.eventually("the driver is on the map") {
                try await h.api.send(.GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: rider.token)
                    .json["drivers"].arrayValue.count == 1
            }
            let booked = try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token)
            let order = try #require(booked.json["id"].stringValue)
            try await h.eventually("offered") {
                try await h.api.send(.GET, "/v1/offers", token: driver.token).json["offers"].arrayValue.count == 1
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/accept", token: driver.token).status == 200)
            try await Self.step(h, emulator, until: "REACHED_PICKUP") {
                try await h.order(order, token: rider.token)["status"] == "REACHED_PICKUP"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/start", token: driver.token).status == 200)
            try await h.eventually("DROPPING_OFF with its trip") {
                let view = try await h.order(order, token: rider.token)
                return view["status"] == "DROPPING_OFF" && view["live_leg"]["leg"] == "dropoff"
            }
            let dropoffTrip = try #require(
                try await h.order(order, token: rider.token)["live_leg"]["trip_id"].stringValue
            )
            try await emulator.addManeuver(tripID: dropoffTrip, kind: "hard_brake", afterSeconds: 40)
            try await emulator.addManeuver(
                tripID: dropoffTrip,
                kind: "speeding",
                afterSeconds: 90,
                speedKmh: 65,
                durationSeconds: 15
            )
            // The driver completes on arrival (within the 100 m radius), before the device stops at the end.
            try await Self.step(h, emulator, until: "REACHED_DROPOFF") {
                try await h.order(order, token: rider.token)["status"] == "REACHED_DROPOFF"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/complete", token: driver.token).status == 200)
            try await Self.step(h, emulator, until: "both drives are trips") {
                try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver.token).json["trips"].arrayValue
                    .count == 2
            }

            let trips = try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver.token).json["trips"]
            let dropoff = trips[0]
            #expect(dropoff["drive_type"] == "dropoff")
            let id = try #require(dropoff["id"].stringValue)
            let detail = try await h.api.send(.GET, "/v1/drivers/me/trips/\(id)", token: driver.token).json
            let events = detail["events"].arrayValue
            #expect(events.map { $0["type"] } == ["hard_braking", "speeding"], "\(events)")
            #expect(events.last?["posted_limit_kmh"] == 50)
            #expect(events.last?["max_speed_kmh"].doubleValue.map { abs($0 - 65) < 0.01 } == true, "\(events)")
            // One event each on ~2.3 km: rate 10 / km per 10 km; stars max(1, 5 − ⌈rate⌉); score 100 − 15 · rate.
            let kilometres = max(1, (dropoff["distance"].doubleValue ?? 0) / 1000)
            let rate = 10 / kilometres
            let stars = JSONValue.number(Double(max(1, 5 - Int(rate.rounded(.up)))))
            #expect(dropoff["ratings"]["hard_braking"] == stars)
            #expect(dropoff["ratings"]["speeding"] == stars)
            #expect(dropoff["ratings"]["rapid_acceleration"] == 5)
            #expect(dropoff["ratings"]["hard_turn"] == 5)
            #expect(dropoff["ratings"]["phone_use"] == "not_available")
            #expect(dropoff["score"].doubleValue == max(0, (100 - 15 * rate).rounded()))
            #expect(detail["path"].arrayValue.count >= 2)
        }
    }
}
