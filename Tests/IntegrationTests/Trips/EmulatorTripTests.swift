import Foundation
import FoundationXML
import Functions
import HyperTrackAPI
import HyperTrackEmulator
import LocalStack
import NIOHTTP1
import Synchronization
import Testing

/// Whole rides against the HyperTrack emulator on its manual clock, with its default driving (from rest, 1.5 m/s²
/// up, 2 m/s² down, corners at 2.5 m/s² sideways, under each street's limit) and its default 5 s step: a normal
/// ride has no events, and manoeuvres injected through the control API show exactly as the events they are.
@Suite("Trips: the emulator's drivers make exactly the driving events they are told to", .timeLimit(.minutes(10)))
struct EmulatorTripTests {
    /// Advances the emulator 5 s at a time (one step) until `condition` holds.
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

    /// A ride from 333 m north of Alexanderplatz to the Brandenburg Gate at the emulator's defaults; `dropoff` is
    /// called with the dropoff drive's trip id as soon as it exists (to inject manoeuvres), `check` with the
    /// driver's token and their trips, newest (the dropoff) first.
    static func ride(
        device: String,
        tickInterval: Double = 5,
        dropoff: @escaping @Sendable (HyperTrackEmulator, String) async throws -> Void = { _, _ in },
        check: @escaping @Sendable (RideHarness, String, [JSONValue]) async throws -> Void
    ) async throws {
        let configuration = Backend.Configuration(webhook: .init(secret: EmulatorRideTests.secret))
        try await EmulatorRideTests.withEmulatorBackend(configuration, tickInterval: tickInterval) { h, emulator, _ in
            await emulator.registerDevice(id: device, name: "phone", longitude: 13.405, latitude: 52.523)
            let rider = try await h.api.rider()
            let driver = try await h.api.driver(device: device)
            try await h.webhook([
                RideHarness.locationEvent(device: device, lat: 52.523, lng: 13.405, at: RideHarness.nowText())
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
            try await dropoff(emulator, dropoffTrip)
            try await Self.step(h, emulator, until: "REACHED_DROPOFF") {
                try await h.order(order, token: rider.token)["status"] == "REACHED_DROPOFF"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/complete", token: driver.token).status == 200)
            try await Self.step(h, emulator, until: "both drives are trips") {
                try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver.token).json["trips"].arrayValue
                    .count == 2
            }
            let trips = try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver.token).json["trips"]
            try await check(h, driver.token, trips.arrayValue)
        }
    }

    /// The stars of a category with `count` events on a trip of `metres`: rate = events per 10 km (at least 1 km
    /// counted), stars max(1, 5 − ⌈rate⌉) (DrivingScore).
    static func stars(_ count: Int, metres: Double) -> JSONValue {
        let rate = Double(count) * 10 / max(1, metres / 1000)
        return .number(Double(count == 0 ? 5 : max(1, 5 - Int(rate.rounded(.up)))))
    }

    @Test("a normal ride (1 s reports throughout): no events on either drive, five stars, score 100")
    func normalRide() async throws {
        try await Self.ride(device: "DEV-CALM", tickInterval: 1) { h, token, trips in
            #expect(trips.map { $0["drive_type"] } == ["dropoff", "pickup"])
            for trip in trips {
                let id = try #require(trip["id"].stringValue)
                let detail = try await h.api.send(.GET, "/v1/drivers/me/trips/\(id)", token: token).json
                #expect(detail["events"].arrayValue.isEmpty, "\(detail["events"])")
                for category in ["rapid_acceleration", "hard_braking", "speeding", "hard_turn"] {
                    #expect(trip["ratings"][category] == 5, "\(category): \(trip["ratings"])")
                }
                #expect(trip["score"] == 100)
            }
            // The dropoff drive starts from rest (or rolling from the pickup) and turns four corners.
            #expect((trips[0]["distance"].doubleValue ?? 0) > 2000)
        }
    }

    @Test(
        "a hard brake and a speeding stretch in the dropoff drive: exactly those two events, with stars, path and map"
    )
    func injectedEvents() async throws {
        let limit = Mutex<Double?>(nil)
        try await Self.ride(device: "DEV-EV") { emulator, trip in
            try await emulator.addManeuver(tripID: trip, kind: "hard_brake", afterSeconds: 30)
            let speeding = try await emulator.addManeuver(
                tripID: trip,
                kind: "speeding",
                afterSeconds: 60,
                speedKmh: 85,
                durationSeconds: 10
            )
            limit.withLock { $0 = speeding.postedLimitKmh }
        } check: { h, token, trips in
            let dropoff = trips[0]
            #expect(dropoff["drive_type"] == "dropoff")
            let id = try #require(dropoff["id"].stringValue)
            let detail = try await h.api.send(.GET, "/v1/drivers/me/trips/\(id)", token: token).json
            let events = detail["events"].arrayValue
            #expect(events.map { $0["type"] } == ["hard_braking", "speeding"], "\(events)")
            let posted = try #require(limit.withLock { $0 })
            #expect(events.last?["posted_limit_kmh"] == .number(posted), "the street's own limit: \(events)")
            #expect(events.last?["max_speed_kmh"].doubleValue.map { abs($0 - 85) < 0.1 } == true, "\(events)")
            #expect(events.first?["peak_acceleration"].doubleValue.map { $0 <= -5.9 } == true, "\(events)")
            let metres = dropoff["distance"].doubleValue ?? 0
            #expect(dropoff["ratings"]["hard_braking"] == Self.stars(1, metres: metres))
            #expect(dropoff["ratings"]["speeding"] == Self.stars(1, metres: metres))
            #expect(dropoff["ratings"]["rapid_acceleration"] == 5)
            #expect(dropoff["ratings"]["hard_turn"] == 5)
            #expect(dropoff["ratings"]["phone_use"] == "not_available")
            // Score 100 − (5 for braking + 10 for speeding) · events per 10 km (at least 1 km counted).
            #expect(dropoff["score"].doubleValue == max(0, (100 - 15 * 10 / max(1, metres / 1000)).rounded()))
            #expect(detail["path"].arrayValue.count >= 2)
            let map = try await h.api.raw("/v1/drivers/me/trips/\(id)/map.svg", token: token)
            #expect(map.status == 200)
            #expect(XMLParser(data: map.body).parse(), "the SVG is well-formed XML")
            let svg = String(decoding: map.body, as: UTF8.self)
            #expect(svg.contains("class=\"event hard_braking\"") && svg.contains("class=\"event speeding\""))
            // The pickup drive, un-manoeuvred, has none.
            #expect(trips[1]["score"] == 100)
        }
    }

    @Test("a hard turn in the dropoff drive (6 m/s² sideways, 1 s reports around it): exactly one hard turn")
    func injectedHardTurn() async throws {
        try await Self.ride(device: "DEV-TURN") { emulator, trip in
            let turn = try await emulator.addManeuver(tripID: trip, kind: "hard_turn", afterSeconds: 5)
            #expect(turn.cornerSeconds != nil)
        } check: { h, token, trips in
            let dropoff = trips[0]
            let id = try #require(dropoff["id"].stringValue)
            let detail = try await h.api.send(.GET, "/v1/drivers/me/trips/\(id)", token: token).json
            let events = detail["events"].arrayValue
            #expect(events.map { $0["type"] } == ["hard_turn"], "\(events)")
            // v²/r = 6 m/s² on the arc; the detector's speed × yaw rate on 1 s reports sees about that.
            #expect(events.first?["peak_acceleration"].doubleValue.map { $0 > 5 && $0 < 6.5 } == true, "\(events)")
            let metres = dropoff["distance"].doubleValue ?? 0
            #expect(dropoff["ratings"]["hard_turn"] == Self.stars(1, metres: metres))
            #expect(dropoff["score"].doubleValue == (100 - 5 * 10 / max(1, metres / 1000)).rounded())
            for category in ["rapid_acceleration", "hard_braking", "speeding"] {
                #expect(dropoff["ratings"][category] == 5, "\(category): \(dropoff["ratings"])")
            }
        }
    }
}
