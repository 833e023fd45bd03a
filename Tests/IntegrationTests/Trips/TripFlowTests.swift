import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("Trips: a ride's drives become trips with events, stars, a path and a map", .timeLimit(.minutes(10)))
struct TripFlowTests {
    /// A drive of about 6.4 km east along a street at 52.52° N, one sample a second with the device's speed and
    /// bearing: 12 m/s, a hard brake at −4 m/s² for 2 s, a slow stretch, a gentle 2 m/s² ramp to 17 m/s (61.2 km/h,
    /// over the 50 limit plus 5) held for 20 s, a gentle slow-down, then 12 m/s to the end.
    /// - Parameter limits: `data.posted_limit_kmh` of the location at each second (`nil`: none, as HyperTrack).
    static func drive(device: String, from start: Date, limits: (Int) -> Double? = { _ in nil }) -> [JSONValue] {
        var speeds: [Double] = Array(repeating: 12, count: 240)
        speeds += [8, 4] + Array(repeating: 4, count: 10)
        speeds += [6, 8, 10, 12, 14, 16] + Array(repeating: 17, count: 20) + [15, 13]
        speeds += Array(repeating: 12, count: 250)
        let metresPerDegree = 111_195.0
        var east = 0.0
        var previous = speeds[0]
        var events: [JSONValue] = []
        let formatter = ISO8601DateFormatter()
        for (second, speed) in speeds.enumerated() {
            east += (previous + speed) / 2
            previous = speed
            let time = formatter.string(from: start.addingTimeInterval(Double(second)))
            let lng = 13.40 + east / (metresPerDegree * cos(52.52 * .pi / 180))
            var data: [String: JSONValue] = [
                "geometry": ["type": "Point", "coordinates": [.number(lng), 52.52]], "accuracy": 5,
                "speed": .number(speed), "bearing": 90,
            ]
            if let limit = limits(second) { data["posted_limit_kmh"] = .number(limit) }
            events.append([
                "created_at": .string(time), "recorded_at": .string(time), "device_id": .string(device),
                "type": "location", "data": .object(data), "version": "2.0.0",
            ])
        }
        return events
    }

    @Test("a ride with one hard brake and one speeding stretch: the dropoff trip shows exactly those, with stars")
    func rideWithEvents() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking) { h in
            let (rider, driver, order) = try await RideTests.acceptedRide(h, tracking)
            let pickupTrip = try #require(tracking.trips.first)
            try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: pickupTrip)])
            try await h.eventually("REACHED_PICKUP") {
                try await h.order(order, token: rider)["status"] == "REACHED_PICKUP"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/start", token: driver).status == 200)
            try await h.eventually("DROPPING_OFF") {
                try await h.order(order, token: rider)["status"] == "DROPPING_OFF"
            }
            let dropoffTrip = try #require(tracking.trips.last)

            // The device reports its drive, a few deliveries of 100 locations (HyperTrack batches events).
            let locations = Self.drive(device: "DEV-1", from: Date(timeIntervalSince1970: 1_795_000_000))
            for start in stride(from: 0, to: locations.count, by: 100) {
                let reply = try await h.webhook(Array(locations[start..<min(start + 100, locations.count)]))
                #expect(reply.status == 202)
            }
            try await h.webhooksApplied()
            try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: dropoffTrip)])
            try await h.eventually("REACHED_DROPOFF") {
                try await h.order(order, token: rider)["status"] == "REACHED_DROPOFF"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/complete", token: driver).status == 200)

            try await h.eventually("both drives are trips") {
                try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver).json["trips"].arrayValue.count == 2
            }
            let list = try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver)
            #expect(list.json["next_cursor"] == .null)
            let trips = list.json["trips"].arrayValue
            #expect(trips.map { $0["drive_type"] } == ["dropoff", "pickup"], "newest first")
            let dropoff = trips[0]
            #expect(dropoff["order_id"].stringValue?.lowercased() == order.lowercased())
            #expect(dropoff["end"]["address"] == "Brandenburger Tor")
            #expect(dropoff["start"]["address"] == "Alexanderplatz")
            let distance = try #require(dropoff["distance"].doubleValue)
            #expect((6000...7000).contains(distance), "about 6.5 km: \(distance)")
            // One event of each kind on ~6.5 km: rate 10 / 6.5 ≈ 1.5 per 10 km → 3 stars; score 100 − 15 · rate.
            #expect(dropoff["ratings"]["hard_braking"] == 3)
            #expect(dropoff["ratings"]["speeding"] == 3)
            #expect(dropoff["ratings"]["rapid_acceleration"] == 5)
            #expect(dropoff["ratings"]["hard_turn"] == 5)
            #expect(dropoff["ratings"]["phone_use"] == "not_available")
            #expect(dropoff["score"].doubleValue == (100 - 15 * 10 / (distance / 1000)).rounded())
            // The pickup drive had no locations: it is a trip without a rating.
            #expect(trips[1]["score"] == .null)
            #expect(trips[1]["ratings"]["hard_braking"] == "not_available")

            let id = try #require(dropoff["id"].stringValue)
            let detail = try await h.api.send(.GET, "/v1/drivers/me/trips/\(id)", token: driver)
            #expect(detail.status == 200)
            let events = detail.json["events"].arrayValue
            #expect(events.map { $0["type"] } == ["hard_braking", "speeding"])
            #expect(events[1]["posted_limit_kmh"] == 50)
            #expect(events[1]["max_speed_kmh"].doubleValue.map { abs($0 - 61.2) < 1e-6 } == true)
            #expect(events[0]["start"]["time"] != .null && events[0]["end"]["lat"] != .null)
            #expect(detail.json["info"]["drive_type"] == "dropoff")
            #expect(detail.json["info"]["vehicle_type"] == "car")
            #expect(detail.json["info"]["point_count"] == .number(Double(locations.count)))
            let path = detail.json["path"].arrayValue
            #expect(path.count >= 2 && path.count < 20, "a straight street simplifies to a few points: \(path.count)")

            let map = try await h.api.raw("/v1/drivers/me/trips/\(id)/map.svg", token: driver)
            #expect(map.status == 200)
            #expect(map.contentType?.hasPrefix("image/svg+xml") == true)
            #expect(XMLParser(data: map.body).parse(), "the SVG is well-formed XML")
            let svg = String(decoding: map.body, as: UTF8.self)
            #expect(svg.contains("<polyline id=\"path\""))
            #expect(svg.contains("class=\"event hard_braking\"") && svg.contains("class=\"event speeding\""))

            // Replaying the analysis stores nothing twice.
            let rows = try await h.client.query(
                "SELECT count(*)::bigint FROM driver_trips",
                logger: BackendHarness.logger
            )
            #expect(try await rows.decode(Int64.self).reduce(0, +) == 2)
        }
    }

    @Test("a location's posted_limit_kmh is what speeding is measured against; an absurd one, or none, is 50")
    func postedLimitsFromLocations() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking) { h in
            let (rider, driver, order) = try await RideTests.acceptedRide(h, tracking)
            let pickupTrip = try #require(tracking.trips.first)
            try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: pickupTrip)])
            try await h.eventually("REACHED_PICKUP") {
                try await h.order(order, token: rider)["status"] == "REACHED_PICKUP"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/start", token: driver).status == 200)
            try await h.eventually("DROPPING_OFF") {
                try await h.order(order, token: rider)["status"] == "DROPPING_OFF"
            }
            let dropoffTrip = try #require(tracking.trips.last)
            // 43.2 km/h on a 30 street for 240 s (speeding against 30), the brake and the 61.2 km/h stretch with a
            // limit of 1000 (not believed: speeding against 50), the rest without a limit (50; 43.2 is under it).
            let locations = Self.drive(device: "DEV-1", from: Date(timeIntervalSince1970: 1_795_000_000)) { second in
                second < 240 ? 30 : second < 290 ? 1000 : nil
            }
            for start in stride(from: 0, to: locations.count, by: 100) {
                #expect(try await h.webhook(Array(locations[start..<min(start + 100, locations.count)])).status == 202)
            }
            try await h.webhooksApplied()
            try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: dropoffTrip)])
            try await h.eventually("REACHED_DROPOFF") {
                try await h.order(order, token: rider)["status"] == "REACHED_DROPOFF"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/complete", token: driver).status == 200)
            try await h.eventually("both drives are trips") {
                try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver).json["trips"].arrayValue.count == 2
            }
            let trips = try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver).json["trips"].arrayValue
            let id = try #require(trips.first?["id"].stringValue)
            let events = try await h.api.send(.GET, "/v1/drivers/me/trips/\(id)", token: driver).json["events"]
                .arrayValue
            #expect(events.map { $0["type"] } == ["speeding", "hard_braking", "speeding"], "\(events)")
            #expect(events.first?["posted_limit_kmh"] == 30)
            #expect(events.first?["max_speed_kmh"].doubleValue.map { abs($0 - 43.2) < 1e-6 } == true)
            #expect(events.last?["posted_limit_kmh"] == 50)
        }
    }
}
