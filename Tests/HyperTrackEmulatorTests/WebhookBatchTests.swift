import Foundation
import HyperTrackEmulator
import Testing

@Suite("Webhook batching, round-trip timings and the bounded log", .timeLimit(.minutes(10)))
struct WebhookBatchTests {
    /// Places phones `D0`, `D1`, … at one spot, tracking, between two steps (each reports at once).
    static func placePhones(_ count: Int, on emulator: HyperTrackEmulator) async {
        for index in 0..<count {
            await emulator.registerDevice(id: "D\(index)", longitude: 13.4, latitude: 52.5, tracking: true)
        }
    }

    @Test(
        "with webhookBatchSize 2, five phones placed in one step arrive as deliveries of at most 2 events, all of them"
    )
    func batches() async throws {
        try await withEmulator(configure: {
            quiet(&$0)
            $0.options.webhookBatchSize = 2
        }) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await Self.placePhones(5, on: emulator)
            try await client.advance(0)
            let log = await emulator.webhookDeliveries()
            let received = await webhooks.next(log.count)
            #expect(log.count >= 3, "5 phones' first reports need at least 3 deliveries of 2 (got \(log.count))")
            #expect(received.allSatisfy { $0.events.count <= 2 })
            let devices = Set(received.flatMap { $0.events.compactMap { $0["device_id"] as? String } })
            #expect(devices == Set((0..<5).map { "D\($0)" }), "no event was lost by the split")
        }
    }

    @Test("with a batch size, phones placed between two steps share deliveries up to the size, in placement order")
    func joined() async throws {
        try await withEmulator(configure: {
            quiet(&$0)
            $0.options.webhookBatchSize = 7
        }) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await Self.placePhones(5, on: emulator)
            try await client.advance(0)
            let log = await emulator.webhookDeliveries()
            // Two events a phone (status and location): three phones fill 6 of 7, the fourth starts a delivery.
            #expect(log.map(\.eventTypes.count) == [6, 4])
            let received = await webhooks.next(log.count)
            let devices = received.flatMap { $0.events.compactMap { $0["device_id"] as? String } }
            #expect(devices == (0..<5).flatMap { ["D\($0)", "D\($0)"] }, "every event, in order, signed as one body")
        }
    }

    @Test("a delivery a fault touched is not joined: duplicated first reports stay two deliveries of their own")
    func faultedNotJoined() async throws {
        try await withEmulator(configure: {
            quiet(&$0)
            $0.options.webhookBatchSize = 100
        }) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D0", longitude: 13.4, latitude: 52.5, tracking: true)
            try await emulator.addFault(.duplicateWebhooks(count: 1))
            await emulator.registerDevice(id: "D1", longitude: 13.4, latitude: 52.5, tracking: true)
            await emulator.registerDevice(id: "D2", longitude: 13.4, latitude: 52.5, tracking: true)
            try await client.advance(0)
            let log = await emulator.webhookDeliveries()
            let received = await webhooks.next(log.count)
            let devices = received.map { Set($0.events.compactMap { $0["device_id"] as? String }) }
            #expect(devices == [["D0"], ["D1"], ["D1"], ["D2"]], "D0 alone, D1 twice, D2 not joined to a duplicate")
        }
    }

    @Test("webhookConcurrency 4: a step's deliveries go out four at a time, never more, and are logged in order")
    func concurrentDeliveries() async throws {
        try await withEmulator(configure: {
            quiet(&$0)
            $0.options.webhookBatchSize = 2
            $0.options.webhookConcurrency = 4
            // The held requests wait for each other: beside the loaded suite the fourth once came more than the
            // default 10 s after the first, which then timed out and was retried (not `delivered`).
            $0.options.webhookTimeout = .seconds(90)
        }) { emulator, client, receiver in
            // Each request is answered only once four are in flight: with one at a time the step would never end
            // (the test's time limit).
            await receiver.script.hold(untilInFlight: 4)
            await Self.placePhones(8, on: emulator)
            try await client.advance(0)
            let log = await emulator.webhookDeliveries()
            #expect(log.count == 8, "8 phones' first reports (status and location each), 2 events a delivery")
            #expect(log.allSatisfy { $0.outcome == .delivered })
            #expect(await receiver.script.mostInFlight == 4)
            // The log keeps the step's order: the phones' reports in the order they were placed.
            let devices = log.flatMap { delivery in
                ((try? JSONSerialization.jsonObject(with: Data(delivery.body.utf8))) as? [[String: Any]] ?? [])
                    .compactMap { $0["device_id"] as? String }
            }
            #expect(devices == (0..<8).flatMap { ["D\($0)", "D\($0)"] })
        }
    }

    @Test("every answered attempt is timed: round-trips lists them, after=N only the later ones")
    func roundTrips() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            await receiver.script.answer(next: [500])
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(20)
            _ = await webhooks.next(2)
            let all = try await client.get("/_emulator/webhooks/round-trips").object
            #expect(all["total"] as? Double == 2, "the 500 and the retry's 200: both answered")
            let milliseconds = try #require(all["milliseconds"] as? [Double])
            #expect(milliseconds.count == 2 && milliseconds.allSatisfy { $0 > 0 })
            // On the wire: the same attempts, each within the stepper's own timing of it.
            let wire = try #require(all["wire_milliseconds"] as? [Double])
            #expect(wire.count == 2 && wire.allSatisfy { $0 > 0 })
            #expect(zip(wire, milliseconds).allSatisfy { $0 <= $1 }, "\(wire) against \(milliseconds)")
            let later = try await client.get("/_emulator/webhooks/round-trips?after=1").object
            #expect((later["milliseconds"] as? [Double])?.count == 1)
            #expect((later["wire_milliseconds"] as? [Double])?.count == 1)
            #expect(try await client.get("/_emulator/webhooks/round-trips?after=-1").status == 400)
        }
    }

    @Test("the wire timing holds the receiver's whole answer: a receiver that answers after 60 ms is timed at 60 ms or more")
    func wireTimingHoldsTheAnswer() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            await receiver.script.answer(after: .milliseconds(60))
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(20)
            _ = await webhooks.next(1)
            let all = try await client.get("/_emulator/webhooks/round-trips").object
            let wire = try #require(all["wire_milliseconds"] as? [Double])
            let milliseconds = try #require(all["milliseconds"] as? [Double])
            #expect(wire.count == 1 && milliseconds.count == 1)
            #expect(wire.allSatisfy { $0 >= 60 }, "\(wire)")
            #expect(zip(wire, milliseconds).allSatisfy { $0 <= $1 }, "\(wire) against \(milliseconds)")
        }
    }

    @Test("outcomes counts every attempt by outcome: a 500 then a 200 (retried, delivered), a 413 (refused for good)")
    func outcomes() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            await receiver.script.answer(next: [500, 200, 413])
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(20)
            _ = await webhooks.next(2)
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(0)
            _ = await webhooks.next(1)
            let counts = try await client.get("/_emulator/webhooks/outcomes").object
            #expect(counts["retry_scheduled"] as? Double == 1)
            #expect(counts["delivered"] as? Double == 1)
            #expect(counts["rejected"] as? Double == 1, "a 4xx is never sent again: \(counts)")
            #expect(counts["failed"] == nil)
            // The delivered attempt's events, by type: the log's delivered entry names them.
            let log = try await client.get("/_emulator/webhooks").object["data"] as? [[String: Any]] ?? []
            let delivered = log.filter { $0["outcome"] as? String == "delivered" }
            #expect(delivered.count == 1)
            let types = delivered.flatMap { $0["event_types"] as? [String] ?? [] }
            #expect(!types.isEmpty)
            let events = try await client.get("/_emulator/webhooks/events").object["delivered"] as? [String: Any] ?? [:]
            let expected = Dictionary(types.map { ($0, 1.0) }, uniquingKeysWith: +)
            #expect(events.mapValues { $0 as? Double ?? -1 } == expected, "\(events)")
        }
    }

    @Test("webhookLogLimit bounds the log, keeping the newest attempts")
    func boundedLog() async throws {
        try await withEmulator(configure: {
            quiet(&$0)
            $0.options.webhookBatchSize = 1
            $0.options.webhookLogLimit = 4
        }) { emulator, client, _ in
            await Self.placePhones(10, on: emulator)
            // The advance returns once every attempt it made was answered.
            try await client.advance(0)
            let total = try await client.get("/_emulator/webhooks/round-trips").object["total"] as? Double
            #expect((total ?? 0) >= 10, "one delivery per event, each timed")
            let log = await emulator.webhookDeliveries()
            #expect(log.count <= 5, "trimmed back to 4 once it passes 5 (got \(log.count))")
            #expect(log.last?.eventTypes.count == 1)
        }
    }

    @Test("GET /_emulator/trips lists every trip in brief with its metadata's order and leg")
    func tripSummaries() async throws {
        try await withEmulator(configure: quiet) { emulator, client, _ in
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            _ = try await client.createTrip(
                device: "D1",
                to: nil,
                metadata: #"{"order_id": "o-1", "leg": "pickup"}"#
            )
            let trips = try await client.get("/_emulator/trips").object["data"] as? [[String: Any]]
            #expect(trips?.count == 1)
            #expect(trips?.first?["device_id"] as? String == "D1")
            #expect(trips?.first?["status"] as? String == "active")
            #expect(trips?.first?["order_id"] as? String == "o-1")
            #expect(trips?.first?["leg"] as? String == "pickup")
        }
    }
}
