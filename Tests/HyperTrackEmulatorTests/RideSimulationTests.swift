import Foundation
import HyperTrackEmulator
import Testing

@Suite("A whole ride played on the stepped clock", .timeLimit(.minutes(10)))
struct RideSimulationTests {
    @Test("created → location updates → destination_arrival → complete → completed with summary, all signed")
    func wholeRide() async throws {
        try await withEmulator(configure: { $0.webhookSecret = "whsec-test" }) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            // Not tracking yet: the trip starts tracking, so its `created` event and the phone's first reports
            // (`device_status` active/drive, a location) travel in one delivery.
            await emulator.registerDevice(id: "D1", name: "Ann", longitude: -122.42, latitude: 37.77, tracking: false)
            let trip = try await client.createTrip(
                device: "D1", to: (-122.41, 37.78), metadata: #"{"order_id":"A1","leg":"pickup"}"#)
            let tripID = try #require(trip["trip_id"] as? String)
            let estimate = try #require(trip["estimate"] as? [String: Any])
            let route = try #require(estimate["route"] as? [String: Any])
            let distance = try #require(route["distance"] as? Double)
            let duration = try #require(route["duration"] as? Double)
            #expect(distance > Double(1_300) && distance < 3_000)  // crow-fly ≈ 1.4 km, grid route longer
            // From rest, slowing for 3 corners and stopping at the end: slower than 10 m/s throughout, not by much.
            #expect(duration > distance / 10 && duration < distance / 10 * 1.3, "\(duration) s for \(distance) m")

            // The trip's `created` event is due now; advancing 0 s delivers it.
            let flushed = try await client.advance(0)
            #expect(flushed.object["webhook_attempts"] as? Double == 1)
            let created = await webhooks.next(1)
            #expect(created[0].events.first?["type"] as? String == "trip")
            #expect((created[0].events.first?["data"] as? [String: Any])?["value"] as? String == "created")
            #expect(created[0].events.map { $0["type"] as? String } == ["trip", "device_status", "location"])

            // Drive for 10 minutes of emulated time: locations every 5 s until arrival.
            let advanced = try await client.advance(600)
            #expect(advanced.status == 200)
            let attempts = try #require(advanced.object["webhook_attempts"] as? Double)
            let driving = await webhooks.next(Int(attempts))
            let events = driving.flatMap(\.events)
            let locations = events.filter { $0["type"] as? String == "location" }
            #expect(locations.count >= Int(duration / 5) - 1)
            // Each location while driving says its street's limit (our extension) and keeps under 90% of it.
            for location in locations where (location["data"] as? [String: Any])?["speed"] as? Double != 0 {
                let data = try #require(location["data"] as? [String: Any])
                let limit = try #require(data["posted_limit_kmh"] as? Double, "\(data)")
                #expect([30.0, 50, 70].contains(limit))
                #expect((data["speed"] as? Double ?? .infinity) <= limit / 3.6 * 0.9 + 0.01, "\(data)")
            }
            let arrivals = events.filter {
                ($0["data"] as? [String: Any])?["value"] as? String == "destination_arrival"
            }
            #expect(arrivals.count == 1)
            #expect((arrivals.first?["data"] as? [String: Any])?["trip_id"] as? String == tripID)
            #expect(
                ((arrivals.first?["data"] as? [String: Any])?["trip_metadata"] as? [String: Any])?["order_id"]
                    as? String == "A1")
            for webhook in created + driving {
                #expect(webhook.signature == expectedSignature(webhook.body, key: "whsec-test"))
                #expect(webhook.contentType == "application/json")
                #expect(webhook.messageID?.isEmpty == false)
            }
            let arrived = try await client.get("/trips/\(tripID)")
            let destination = try #require(arrived.object["destination"] as? [String: Any])
            #expect(destination["arrived_at"] is String)

            // Complete: 202 with an empty body, processing_completion, then completed after a step.
            let complete = try await client.post("/trips/\(tripID)/complete")
            #expect(complete.status == 202)
            #expect(complete.body.isEmpty)
            #expect(try await client.get("/trips/\(tripID)").object["status"] as? String == "processing_completion")
            let step = try await client.advance(5)
            let completedHooks = await webhooks.next(Int(try #require(step.object["webhook_attempts"] as? Double)))
            let completedEvent = try #require(
                completedHooks.flatMap(\.events).first {
                    ($0["data"] as? [String: Any])?["value"] as? String == "completed"
                })
            let summary = try #require((completedEvent["data"] as? [String: Any])?["summary"] as? [String: Any])
            let finished = try await client.get("/trips/\(tripID)").object
            #expect(finished["status"] as? String == "completed")
            #expect(finished["completed_at"] is String)
            #expect(finished["estimate"] == nil)  // no estimate once completed (the key is absent, not `{}`)
            let storedSummary = try #require(finished["summary"] as? [String: Any])
            #expect(storedSummary["distance"] as? Double == summary["distance"] as? Double)
            let summaryDistance = try #require(summary["distance"] as? Double)
            #expect(abs(summaryDistance - distance) < 0.05 * distance)
            #expect((summary["duration"] as? Double ?? 0) >= duration)
            let line = try #require((summary["locations"] as? [String: Any])?["coordinates"] as? [[Any]])
            #expect(line.count > 10)
            #expect(line.allSatisfy { $0.count == 4 && $0[0] is Double && $0[1] is Double && $0[3] is String })
            let markers = try #require(summary["markers"] as? [[String: Any]])
            #expect(markers.contains { ($0["data"] as? [String: Any])?["activity"] as? String == "drive" })
        }
    }

    @Test("a device moved by the control API arrives at once, or re-plans its route from its new position")
    func teleport() async throws {
        try await withEmulator { _, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            _ = try await client.post("/_emulator/devices", #"{"device_id":"T1","position":[-122.42,37.77]}"#)
            let far = try await client.createTrip(device: "T1", to: (-122.30, 37.70))
            let near = try await client.createTrip(device: "T1", to: (-122.41, 37.78))
            let moved = try await client.post(
                "/_emulator/devices/", #"{"device_id":"T1","position":{"type":"Point","coordinates":[-122.41,37.7801]}}"#)
            #expect(moved.status == 201)
            let step = try await client.advance(5)
            let events = await webhooks.next(Int(step.object["webhook_attempts"] as? Double ?? 0)).flatMap(\.events)
            let arrivedTrips = events.compactMap { event -> String? in
                let data = event["data"] as? [String: Any]
                return data?["value"] as? String == "destination_arrival" ? data?["trip_id"] as? String : nil
            }
            #expect(arrivedTrips == [near["trip_id"] as? String])
            // The device now heads for the other trip's destination from where it was put.
            let other = try await client.get("/trips/\(far["trip_id"] as? String ?? "")").object
            let route = (other["estimate"] as? [String: Any])?["route"] as? [String: Any]
            let first = ((route?["polyline"] as? [String: Any])?["coordinates"] as? [[Double]])?.first
            #expect(first.map { abs($0[0] + 122.41) < 0.01 && abs($0[1] - 37.78) < 0.01 } == true)
            #expect(try await client.post("/_emulator/devices", #"{"device_id":"T1","position":[999,1]}"#).status == 400)
        }
    }

    @Test("the same inputs give the same ids, estimates, addresses and share URLs")
    func determinism() async throws {
        func play() async throws -> (String, Data, [String], String) {
            try await withEmulator { emulator, client, _ in
                await emulator.registerDevice(id: "D9", longitude: 13.40, latitude: 52.52)
                let trip = try await client.createTrip(device: "D9", to: (13.43, 52.50))
                try await client.advance(120)
                let later = try await client.get("/trips/\(trip["trip_id"] as? String ?? "")")
                let views = trip["views"] as? [String: Any] ?? [:]
                let deliveries = await emulator.webhookDeliveries().map(\.body)
                var estimate = later.object["estimate"] as? [String: Any] ?? [:]
                estimate["share_url"] = views["share_url"]
                estimate["address"] = (trip["destination"] as? [String: Any])?["address"]
                let data = try JSONSerialization.data(withJSONObject: estimate, options: .sortedKeys)
                return (trip["trip_id"] as? String ?? "", data, deliveries, views["share_url"] as? String ?? "")
            }
        }
        let first = try await play()
        let second = try await play()
        #expect(first.0 == second.0)
        #expect(first.1 == second.1)
        #expect(first.2 == second.2)
        #expect(first.3 == second.3)
        #expect(first.3.count == "https://trck.at/".count + 7)
    }

    @Test("one device's trips in turn: each arrives and completes once, a step's completions in creation order")
    func tripsInTurn() async throws {
        // The steps look only at trips not yet completed (`Engine.TripIndex`): a completed trip must never come
        // back, the next trip's arrival must still be seen, and completions must keep the order of a scan of
        // every trip.
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            try await tracking("S1", emulator, client, &webhooks, at: (13.40, 52.52))
            var events: [[String: Any]] = []
            func step(_ seconds: Double) async throws {
                let answer = try await client.advance(seconds)
                let attempts = Int(try #require(answer.object["webhook_attempts"] as? Double))
                events += await webhooks.next(attempts).flatMap(\.events)
            }
            func trips(_ value: String) -> [String] {
                events.compactMap { event in
                    let data = event["data"] as? [String: Any]
                    return event["type"] as? String == "trip" && data?["value"] as? String == value
                        ? data?["trip_id"] as? String : nil
                }
            }
            func listed(_ status: String) async throws -> [String] {
                let page = try await client.get("/trips?device_id=S1&status=\(status)").object
                return (page["data"] as? [[String: Any]] ?? []).compactMap { $0["trip_id"] as? String }
            }

            let first = try #require(try await client.createTrip(device: "S1", to: (13.41, 52.52))["trip_id"] as? String)
            try await step(600)
            #expect(trips("destination_arrival") == [first])
            #expect(try await client.post("/trips/\(first)/complete").status == 202)
            let second = try #require(try await client.createTrip(device: "S1", to: (13.40, 52.53))["trip_id"] as? String)
            try await step(5)
            #expect(trips("completed") == [first])
            #expect(try await listed("active") == [second])
            #expect(try await listed("completed") == [first])

            try await step(600)
            #expect(trips("destination_arrival") == [first, second])
            // Two trips to where the device stands arrive at the next step; completed newest first, they complete
            // in the order they were created.
            let third = try #require(try await client.createTrip(device: "S1", to: (13.40, 52.53))["trip_id"] as? String)
            let fourth = try #require(try await client.createTrip(device: "S1", to: (13.40, 52.53))["trip_id"] as? String)
            try await step(5)
            #expect(trips("destination_arrival") == [first, second, third, fourth])
            for trip in [fourth, second, third] {
                #expect(try await client.post("/trips/\(trip)/complete").status == 202)
            }
            try await step(5)
            #expect(trips("completed") == [first, second, third, fourth])
            #expect(try await listed("active") == [])
            try await step(600)
            #expect(trips("completed").count == 4)
            #expect(trips("destination_arrival").count == 4)
        }
    }

    @Test("a scaled clock moves the device without any advance call")
    func scaledClock() async throws {
        try await withEmulator(configure: { $0.clock = .scaled(rate: 200) }) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "R1", longitude: 2.35, latitude: 48.85)
            _ = try await client.createTrip(device: "R1", to: (2.36, 48.86))
            // Wait for events, not for time: the first location webhook arrives on its own.
            var sawLocation = false
            while !sawLocation, let webhook = await webhooks.next() {
                sawLocation = webhook.events.contains { $0["type"] as? String == "location" }
            }
            #expect(sawLocation)
        }
    }
}
