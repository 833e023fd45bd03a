import AsyncHTTPClient
import Foundation
import Functions
import HyperTrackAPI
import HyperTrackEmulator
import Logging
import ServiceLifecycle
import Testing
import TriggerRuntime

/// The webhooks the project's emulator really sends, received over HTTP, verified and decoded by this module.
@Suite("Webhooks from the HyperTrack emulator")
struct EmulatorWebhookTests {
    @Test func aRideDeliversSignedWebhooksThatDecodeIntoTypedEvents() async throws {
        try await FakeHyperTrack.withServer { receiver in
            var configuration = HyperTrackEmulator.Configuration()
            configuration.accountID = "webhook-suite"
            configuration.secretKey = "webhook-suite-secret"
            configuration.webhookSecret = "whsec-\(UUID().uuidString)"
            configuration.webhookURL = "\(await receiver.baseURL)/hooks"
            let logger = Logger(label: "hypertrack-emulator") { _ in SwiftLogNoOpLogHandler() }
            let emulator = try HyperTrackEmulator(configuration: configuration, logger: logger)
            try await ServiceGroup.withRunning([emulator], logger: logger) {
                let client = try HyperTrackClient(
                    configuration: .init(
                        baseURL: try await emulator.baseURL(),
                        accountID: configuration.accountID,
                        secretKey: configuration.secretKey
                    ),
                    httpClient: .shared,
                    logger: LogCapture().logger()
                )
                await emulator.registerDevice(id: "RIDER-CAR", name: "car", longitude: -122.40, latitude: 37.78)
                let trip = try await client.createTrip(
                    CreateTripRequest(
                        deviceID: "RIDER-CAR",
                        destination: .init(point: Coordinate(latitude: 37.782, longitude: -122.40), radius: 50),
                        metadata: ["order_id": "o-1", "leg": "pickup"]
                    )
                )
                await emulator.advanceClock(by: 120)
                try await client.tracking.completeTrip(id: trip.tripID)
                await emulator.advanceClock(by: 60)

                let posts = await receiver.requests("POST", "/hooks")
                #expect(!posts.isEmpty)
                let verifier = HMACWebhookSignatureVerifier(secret: configuration.webhookSecret ?? "", logger: LogCapture().logger())
                var events: [WebhookEvent] = []
                for post in posts {
                    try verifier.verify(body: post.body, signature: post.header(hyperTrackSignatureHeader))
                    #expect(post.header("x-amz-sns-message-id")?.isEmpty == false)
                    events += try WebhookEvent.decodeDelivery(post.body)
                }
                let tripEvents = events.compactMap(\.tripEvent).filter { $0.tripID == trip.tripID }
                #expect(tripEvents.map(\.value).contains(.created))
                #expect(tripEvents.map(\.value).contains(.destinationArrival))
                let completed = try #require(tripEvents.first { $0.value == .completed })
                #expect(completed.tripMetadata == ["order_id": "o-1", "leg": "pickup"])
                let summary = try #require(completed.summary)
                #expect((summary.distance ?? 0) > 0)
                #expect(!summary.locations.isEmpty)
                #expect(events.contains { if case .location = $0.payload { true } else { false } })
                #expect(events.allSatisfy { $0.createdAt != nil })
                // Nothing the emulator sends falls back to raw for the types this module knows.
                for event in events where [.location, .deviceStatus, .battery, .trip, .nearbyDevicesRequest].contains(event.type) {
                    if case .unknown = event.payload { Issue.record("undecoded \(event.type): \(event.raw)") }
                }
            }
        }
    }
}
