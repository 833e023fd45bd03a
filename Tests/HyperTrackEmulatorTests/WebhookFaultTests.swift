import Foundation
import HyperTrackEmulator
import Testing

@Suite("Webhook faults: delay, replay under a new message id, event-type rules", .timeLimit(.minutes(10)))
struct WebhookFaultTests {
    @Test("delay_webhooks holds a delivery for delay_seconds of emulated time, then sends it")
    func delay() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            try await tracking("D1", emulator, client, &webhooks)
            let rule = try await client.post(
                "/_emulator/faults", #"{"kind":"delay_webhooks","delay_seconds":45,"event_type":"trip","count":1}"#)
            #expect(rule.status == 201)
            #expect(rule.object["kind"] as? String == "delay_webhooks")
            #expect(rule.object["delay_seconds"] as? Double == 45)
            #expect(rule.object["event_type"] as? String == "trip")
            let created = await emulator.now()
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(44)
            #expect(await emulator.webhookDeliveries().count == 1)  // only the placement's reports
            try await client.advance(1)
            let late = await webhooks.next(1)
            #expect(late[0].events.first?["type"] as? String == "trip")
            let attempt = try #require(await emulator.webhookDeliveries().last)
            #expect(attempt.attemptedAt.timeIntervalSince(created) == 45)
            #expect(attempt.outcome == .delivered)
        }
    }

    @Test("replay_webhooks sends the same signed body again under a new x-amz-sns-message-id")
    func replay() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            try await tracking("D1", emulator, client, &webhooks)
            try await emulator.addFault(.replayWebhooks(eventType: "trip", count: 1))
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(0)
            let copies = await webhooks.next(2)
            #expect(copies[0].body == copies[1].body)
            #expect(copies[0].signature == copies[1].signature)
            #expect(copies[0].signature == expectedSignature(copies[1].body, key: "emulator-secret"))
            #expect(copies[0].messageID != copies[1].messageID)

            // Later, on the control API: the copy follows `delay_seconds` of emulated time after the original.
            _ = try await client.post("/_emulator/faults", #"{"kind":"replay_webhooks","delay_seconds":120,"count":1}"#)
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(0)
            let original = await webhooks.next(1)
            try await client.advance(119)
            let before = await emulator.webhookDeliveries().count
            try await client.advance(1)
            let replayed = await webhooks.next(1)
            #expect(await emulator.webhookDeliveries().count == before + 1)
            #expect(replayed[0].body == original[0].body && replayed[0].messageID != original[0].messageID)
        }
    }

    @Test("a rule for one event type takes only those events out of a mixed delivery")
    func eventTypeSplit() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            try await emulator.addFault(.dropWebhooks(eventType: "trip"))
            _ = try await client.createTrip(device: "D1", to: nil)  // trip created + the phone's first reports
            try await client.advance(0)
            let received = await webhooks.next(1)
            #expect(received[0].events.map { $0["type"] as? String } == ["device_status", "location"])
            let log = await emulator.webhookDeliveries()
            // A drop is logged when it happens, before the attempt of the rest.
            #expect(log.map(\.outcome) == [.dropped, .delivered])
            #expect(log.map(\.eventTypes) == [["trip"], ["device_status", "location"]])
        }
    }

    @Test("dropping every webhook: all logged as dropped, none sent; bad fields are 400")
    func dropAllAndValidation() async throws {
        try await withEmulator { emulator, client, _ in
            _ = try await client.post("/_emulator/faults", #"{"kind":"drop_webhooks"}"#)
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2)
            _ = try await client.createTrip(device: "D1", to: (1.001, 2.0))
            try await client.advance(300)
            let outcomes = Set(await emulator.webhookDeliveries().map(\.outcome))
            #expect(outcomes == [.dropped])
            for body in [
                #"{"kind":"delay_webhooks","delay_seconds":-1}"#, #"{"kind":"replay_webhooks","delay_seconds":"soon"}"#,
                #"{"kind":"drop_webhooks","event_type":7}"#,
            ] {
                let refused = try await client.post("/_emulator/faults", body)
                #expect(refused.status == 400, "\(body)")
                #expect(refused.object["title"] is String)
            }
            let bad = await #expect(throws: HyperTrackEmulatorError.self) {
                try await emulator.addFault(.delayWebhooks(seconds: -5))
            }
            #expect(bad?.code == .invalidFault)
        }
    }

    @Test("for_seconds: a rule fires only for that much emulated time (a 30-minute 503 outage ends by itself)")
    func outageWindow() async throws {
        try await withEmulator(configure: quiet) { emulator, client, _ in
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            let rule = try await client.post(
                "/_emulator/faults", #"{"kind":"http_error","status":503,"path":"/trips/**","for_seconds":1800}"#)
            #expect(rule.status == 201 && rule.object["expires_at"] is String)
            #expect(try await client.post("/trips", #"{"device_id":"D1"}"#).status == 503)
            try await client.advance(1799)
            #expect(try await client.get("/trips").status == 503)
            try await client.advance(1)
            #expect(try await client.post("/trips", #"{"device_id":"D1"}"#).status == 201)
            try await emulator.addFault(.dropWebhooks().lasting(seconds: 60))
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(60)
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(0)
            // The drop is logged at once; the trip made at 1800 s before the rule and the one at 1860 s are sent.
            #expect(await emulator.webhookDeliveries().map(\.outcome) == [.dropped, .delivered, .delivered])
            #expect(try await client.post("/_emulator/faults", #"{"kind":"latency","for_seconds":0}"#).status == 400)
        }
    }
}
