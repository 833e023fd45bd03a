import Foundation
import HyperTrackEmulator
import Testing

/// `POST /_emulator/trips/{id}/maneuvers` over HTTP: where a manoeuvre lands, the 1-second reports around it, and
/// the answers to bad requests.
@Suite("Manoeuvres through the control API", .timeLimit(.minutes(10)))
struct ManeuverEndpointTests {
    /// Location events of `webhooks` as (seconds after `start`, speed, bearing).
    static func locations(_ webhooks: [ReceivedWebhook], from start: Date) -> [(Double, Double, Double)] {
        webhooks.flatMap(\.events).compactMap { event in
            guard event["type"] as? String == "location", let data = event["data"] as? [String: Any],
                let recorded = (event["recorded_at"] as? String).flatMap({ try? Date($0, strategy: .iso8601) }),
                let speed = data["speed"] as? Double, let bearing = data["bearing"] as? Double
            else { return nil }
            return (recorded.timeIntervalSince(start), speed, bearing)
        }
    }

    @Test("a hard brake at 20 s into a straight 2 km drive: reports every second from 18 s, a 6 m/s drop in the first")
    func hardBrake() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            try await tracking("D1", emulator, client, &webhooks, at: (13.40, 52.52))
            let start = try #require(
                Date(try await client.get("/_emulator/clock").object["now"] as? String ?? "", strategy: .iso8601)
            )
            let trip = try await client.createTrip(device: "D1", to: (13.43, 52.52))
            let tripID = try #require(trip["trip_id"] as? String)
            let flushed = try await client.advance(0)
            _ = await webhooks.next(Int(flushed.object["webhook_attempts"] as? Double ?? 0))
            let added = try await client.post(
                "/_emulator/trips/\(tripID)/maneuvers",
                #"{"kind": "hard_brake", "after_seconds": 20}"#
            )
            #expect(added.status == 201, "\(added.text)")
            let maneuvers = try #require(added.object["maneuvers"] as? [[String: Any]])
            #expect(maneuvers.count == 1 && maneuvers[0]["after_seconds"] as? Double == 20)
            let advanced = try await client.advance(40)
            let reports = Self.locations(
                await webhooks.next(Int(advanced.object["webhook_attempts"] as? Double ?? 0)),
                from: start
            )
            let seconds = Set(reports.map { Int($0.0.rounded()) })
            // Every second from 2 s before the brake to its hold's end; otherwise every 5 s step.
            #expect(Set(18...24).isSubset(of: seconds), "\(seconds.sorted())")
            #expect(!seconds.contains(12) && seconds.contains(15) && seconds.contains(30), "\(seconds.sorted())")
            let speed = { (second: Double) in reports.first { abs($0.0 - second) < 0.01 }?.1 }
            let before = try #require(speed(20))
            let after = try #require(speed(21))
            #expect(abs(before - after - 6) < 0.02, "\(before) → \(after) m/s in 1 s")
            #expect(reports.allSatisfy { abs($0.2 - 90) < 0.1 }, "due east throughout")
        }
    }

    @Test("a hard turn lands on a corner; unknown kinds, slow speeding and past seconds are 400 naming the field")
    func answers() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            try await tracking("D1", emulator, client, &webhooks, at: (13.40, 52.52))
            let trip = try await client.createTrip(device: "D1", to: (13.43, 52.53))
            let tripID = try #require(trip["trip_id"] as? String)
            let path = "/_emulator/trips/\(tripID)/maneuvers"
            let turn = try await client.post(path, #"{"kind": "hard_turn", "after_seconds": 0}"#)
            #expect(turn.status == 201, "\(turn.text)")
            let landed = try #require((turn.object["maneuvers"] as? [[String: Any]])?.first)
            #expect((landed["corner_seconds"] as? Double ?? 0) > 0)
            #expect(landed["lateral_acceleration"] as? Double == 6)
            for (body, field) in [
                (#"{"kind": "donut", "after_seconds": 10}"#, "kind"),
                (#"{"kind": "speeding", "after_seconds": 5000, "speed_kmh": 20}"#, "speed_kmh"),
                (#"{"kind": "hard_brake", "after_seconds": -1}"#, "after_seconds"),
            ] {
                let refused = try await client.post(path, body)
                #expect(refused.status == 400, "\(body): \(refused.text)")
                let invalid = refused.object["invalid_params"] as? [[String: Any]]
                #expect(invalid?.first?["name"] as? String == field, "\(refused.text)")
            }
            // A straight drive has no corner to take hard.
            let straight = try await client.createTrip(device: "D1", to: (13.39, 52.52))
            let straightID = try #require(straight["trip_id"] as? String)
            let none = try await client.post(
                "/_emulator/trips/\(straightID)/maneuvers",
                #"{"kind": "hard_turn", "after_seconds": 0}"#
            )
            #expect(none.status == 400 && none.text.contains("after_seconds"), "\(none.text)")
        }
    }

    @Test("reported positions, speeds and bearings agree: the distance between reports is the mean speed × 1 s")
    func consistentReports() async throws {
        try await withEmulator(configure: {
            quiet(&$0); $0.options.tickInterval = 1
        }) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            try await tracking("D1", emulator, client, &webhooks, at: (13.40, 52.52))
            _ = try await client.createTrip(device: "D1", to: (13.41, 52.523))
            let advanced = try await client.advance(300)
            let reports: [(lng: Double, lat: Double, speed: Double, bearing: Double)] =
                await webhooks.next(Int(advanced.object["webhook_attempts"] as? Double ?? 0)).flatMap(\.events)
                .compactMap { event in
                    guard event["type"] as? String == "location", let data = event["data"] as? [String: Any],
                        let point = (data["geometry"] as? [String: Any])?["coordinates"] as? [Double],
                        let speed = data["speed"] as? Double, let bearing = data["bearing"] as? Double
                    else { return nil }
                    return (point[0], point[1], speed, bearing)
                }
            #expect(reports.count > 60)
            var straights = 0
            for (a, b) in zip(reports, reports.dropFirst()) {
                // Equirectangular metres: plenty over 15 m.
                let north = (b.lat - a.lat) * .pi / 180 * 6_371_008.8
                let east = (b.lng - a.lng) * .pi / 180 * 6_371_008.8 * cos(a.lat * .pi / 180)
                let moved = (north * north + east * east).squareRoot()
                #expect(abs(moved - (a.speed + b.speed) / 2) < 0.3, "\(a) → \(b): \(moved) m")
                guard moved > 5, a.bearing == b.bearing else { continue }
                straights += 1
                let course = (atan2(east, north) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
                #expect(abs(course - a.bearing) < 1, "course \(course)° against bearing \(a.bearing)°")
            }
            #expect(straights > 30)
        }
    }
}
