import Foundation
import HyperTrackEmulator
import Logging
import ServiceLifecycle
import TriggerRuntime

/// Runs a receiver and an emulator wired to it (manual clock from a fixed instant, so runs are reproducible), for
/// one test.
func withEmulator<T: Sendable>(
    configure: (inout HyperTrackEmulator.Configuration) -> Void = { _ in },
    _ body: (HyperTrackEmulator, APIClient, WebhookReceiver) async throws -> T
) async throws -> T {
    let receiver = WebhookReceiver()
    return try await receiver.withRunning { webhookURL in
        var configuration = HyperTrackEmulator.Configuration()
        configuration.webhookURL = webhookURL
        configuration.clock = .manual(startingAt: Date(timeIntervalSince1970: 1_767_603_600))
        configure(&configuration)
        let logger = Logger(label: "emulator-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let emulator = try HyperTrackEmulator(configuration: configuration, logger: logger)
        return try await ServiceGroup.withRunning([emulator], logger: logger) {
            let client = APIClient(baseURL: try await emulator.baseURL())
            return try await body(emulator, client, receiver)
        }
    }
}

/// No periodic location reports: for tests that count deliveries over minutes of emulated time.
func quiet(_ configuration: inout HyperTrackEmulator.Configuration) {
    configuration.options.locationReportInterval = nil
}

/// Places a tracking device and consumes its first reports (`device_status` active and a location), so what the
/// test does next arrives on its own.
func tracking(
    _ id: String, _ emulator: HyperTrackEmulator, _ client: APIClient,
    _ webhooks: inout AsyncStream<ReceivedWebhook>.Iterator, at position: (Double, Double) = (1, 2)
) async throws {
    await emulator.registerDevice(id: id, longitude: position.0, latitude: position.1, tracking: true)
    try await client.advance(0)
    _ = await webhooks.next(1)
}

extension AsyncStream<ReceivedWebhook>.Iterator {
    /// The next `count` webhooks (the test's time limit guards against waiting forever).
    mutating func next(_ count: Int) async -> [ReceivedWebhook] {
        var received: [ReceivedWebhook] = []
        while received.count < count, let webhook = await next() { received.append(webhook) }
        return received
    }
}

/// `hex(HMAC-SHA256(body, key))`, computed independently of the emulator.
import Crypto

func expectedSignature(_ body: [UInt8], key: String) -> String {
    HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(key.utf8)))
        .map { String(format: "%02x", $0) }.joined()
}
