import Foundation
import HyperTrackEmulator
import Testing

@Suite("A whole ride played on the stepped clock", .timeLimit(.minutes(2)))
struct RideSimulationTests {
    @Test("created → location updates → destination_arrival → complete → completed with summary, all signed")
    func wholeRide() async throws {
        try await withEmulator(configure: { $0.webhookSecret = "whsec-test" }) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", name: "Ann", longitude: -122.42, latitude: 37.77)
            let trip = try await client.createTrip(
                device: "D1", to: (-122.41, 37.78), metadata: #"{"order_id":"A1","leg":"pickup"}"#)
            let tripID = try #require(trip["trip_id"] as? String)
            let estimate = try #require(trip["estimate"] as? [String: Any])
            let route = try #require(estimate["route"] as? [String: Any])
            let distance = try #require(route["distance"] as? Double)
            let duration = try #require(route["duration"] as? Double)
            #expect(distance > Double(1_300) && distance < 3_000)  // crow-fly ≈ 1.4 km, grid route longer
            #expect(duration == (distance / 10).rounded())

            // The trip's `created` event is due now; advancing 0 s delivers it.
            let flushed = try await client.advance(0)
            #expect(flushed.object["webhook_attempts"] as? Double == 1)
            let created = await webhooks.next(1)
            #expect(created[0].events.first?["type"] as? String == "trip")
            #expect((created[0].events.first?["data"] as? [String: Any])?["value"] as? String == "created")

            // Drive for 10 minutes of emulated time: locations every 5 s until arrival.
            let advanced = try await client.advance(600)
            #expect(advanced.status == 200)
            let attempts = try #require(advanced.object["webhook_attempts"] as? Double)
            let driving = await webhooks.next(Int(attempts))
            let events = driving.flatMap(\.events)
            let locations = events.filter { $0["type"] as? String == "location" }
            #expect(locations.count >= Int(duration / 5) - 1)
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
