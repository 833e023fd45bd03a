import Foundation
import HyperTrackEmulator
import Testing

@Suite("Webhook delivery, retries and the delivery log", .timeLimit(.minutes(10)))
struct WebhookDeliveryTests {
    @Test("a 500 from the receiver is retried 20 s later (emulated) with the same message id and signature")
    func retryOn500() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            await receiver.script.answer(next: [500, 503])
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(0)
            let first = await webhooks.next(1)
            #expect(first[0].answered == 500)
            try await client.advance(19)  // nothing due yet
            #expect(await emulator.webhookDeliveries().count == 1)
            try await client.advance(1)
            let second = await webhooks.next(1)
            try await client.advance(20)
            let third = await webhooks.next(1)
            #expect(second[0].answered == 503 && third[0].answered == 200)
            #expect(Set([first, second, third].map { $0[0].messageID }).count == 1)
            #expect(Set([first, second, third].map { $0[0].body }).count == 1)
            #expect(third[0].signature == expectedSignature(third[0].body, key: "emulator-secret"))
            let log = await emulator.webhookDeliveries()
            #expect(log.map(\.attempt) == [1, 2, 3])
            #expect(log.map(\.outcome) == [.retryScheduled, .retryScheduled, .delivered])
            #expect(log[1].attemptedAt.timeIntervalSince(log[0].attemptedAt) == 20)
        }
    }

    @Test("after 3 retries the delivery fails; 4xx is accepted and not retried")
    func giveUpAndFourHundreds() async throws {
        try await withEmulator(configure: quiet) { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            await emulator.registerDevice(id: "D2", longitude: 1, latitude: 2, tracking: false)
            await receiver.script.answer(next: [500, 500, 500, 500, 410])
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(120)
            let attempts = await webhooks.next(4)
            #expect(attempts.map(\.answered) == [500, 500, 500, 500])
            _ = try await client.createTrip(device: "D2", to: nil)
            try await client.advance(120)
            let gone = await webhooks.next(1)
            #expect(gone[0].answered == 410)
            let outcomes = await emulator.webhookDeliveries().map(\.outcome)
            #expect(outcomes == [.retryScheduled, .retryScheduled, .retryScheduled, .failed, .rejected])

            let log = try await client.get("/_emulator/webhooks/")
            let entries = try #require(log.object["data"] as? [[String: Any]])
            #expect(entries.count == 5)
            #expect(entries.last?["outcome"] as? String == "rejected")
            #expect(entries.last?["status_code"] as? Double == 410)
            #expect((entries.last?["events"] as? [[String: Any]])?.first?["type"] as? String == "trip")
        }
    }

    @Test("an unreachable receiver counts as a failure and is retried")
    func unreachableReceiver() async throws {
        try await withEmulator(configure: {
            $0.webhookURL = "http://127.0.0.1:1/webhooks"
            $0.options.webhookTimeout = .milliseconds(500)  // connection attempts are retried until the timeout
        }) { emulator, client, _ in
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(0)
            let log = await emulator.webhookDeliveries()
            #expect(log.count == 1)
            #expect(log[0].outcome == .retryScheduled)
            #expect(log[0].statusCode == nil && log[0].error != nil)
        }
    }

    @Test("without a webhook URL deliveries are logged as not configured")
    func notConfigured() async throws {
        try await withEmulator(configure: {
            $0.webhookURL = nil
            quiet(&$0)
        }) { emulator, client, _ in
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(60)
            #expect(await emulator.webhookDeliveries().map(\.outcome) == [.notConfigured])
        }
    }
}
