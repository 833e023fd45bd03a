import Foundation
import FunctionsTesting
import HyperTrackAPI
import PostgresNIO
import Testing
import TriggerRuntime

@testable import Functions

/// `WEBHOOKS_APPLY=worker`: the API stores each authenticated body as received (``M0034WebhookBodiesAsReceived``);
/// `applyWebhookDelivery` decodes it, applies the usable events and records the rest as rejected, as the request
/// does by default. A previous release's receipt (the events its API decoded) is still applied.
@Suite("Functions: webhook deliveries stored as received and applied by the worker", .timeLimit(.minutes(10)))
struct WebhookReceiptTests {
    static let configuration = Backend.Configuration(webhook: .init(secret: "whsec-test", apply: .worker))

    static func count(_ h: BackendHarness, _ query: PostgresQuery) async throws -> Int {
        try await WebhookEndpointTests.count(h.client, query)
    }

    static func post(_ h: BackendHarness, _ body: Data, messageID: String) async throws -> APIClient.Reply {
        let signature = HMACWebhookSignatureVerifier.signature(for: body, secret: "whsec-test")
        return try await WebhookEndpointTests.post(
            h,
            body: body,
            signature: signature,
            messageID: messageID,
            apply: false
        )
    }

    @Test("bodies that are not JSON, hold a NUL byte or invalid UTF-8, or hold bad events are stored and answered 202; the worker records their rejections and stores the good events")
    func rejectedByTheWorker() async throws {
        let mixed = Data(
            """
            [{"created_at": "2026-11-21T19:00:00Z", "device_id": "D1", "type": "teleport", "data": {"value": "x"}},
             {"created_at": "2026-11-21T19:00:02Z", "recorded_at": "2026-11-21T19:00:02Z", "device_id": "D1",
              "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}}]
            """.utf8
        )
        let bodies: [(String, Data)] = [
            ("not-json", Data("not json".utf8)),
            ("bytes", Data([0x5B, 0x00, 0xFF, 0xFE, 0x5D])),
            ("mixed", mixed),
        ]
        try await BackendHarness.with(configuration: Self.configuration) { h in
            for (messageID, body) in bodies {
                let reply = try await Self.post(h, body, messageID: messageID)
                #expect(reply.status == 202, "\(messageID): HyperTrack would never resend a 4xx")
            }
            // Received, not read yet: nothing rejected, nothing in the inbox.
            #expect(try await Self.count(h, "SELECT count(*)::int FROM webhook_receipts WHERE events IS NULL") == 3)
            #expect(try await Self.count(h, "SELECT count(*)::int FROM webhook_rejections") == 0)
            let stored = try await h.client.query(
                """
                SELECT b.body FROM webhook_receipt_bodies b JOIN webhook_receipts r ON r.id = b.receipt_id
                WHERE r.message_id = 'bytes'
                """,
                logger: BackendHarness.logger
            ).collect().map { try $0.decode(ByteBuffer.self) }
            #expect(stored.map { Data($0.readableBytesView) } == [bodies[1].1], "the bytes as they arrived")

            #expect(try await h.applyWebhooks() == 3)
            let reasons = try await h.client.query(
                "SELECT message_id, event_index, reason FROM webhook_rejections ORDER BY message_id, event_index",
                logger: BackendHarness.logger
            ).collect().map { try $0.decode((String, Int?, String).self) }
            #expect(reasons.map(\.0) == ["bytes", "mixed", "not-json"])
            #expect(reasons[0].1 == nil && reasons[0].2 == "the body is not JSON")
            #expect(reasons[1].1 == 0 && reasons[1].2.contains("unknown event type \"teleport\""))
            #expect(reasons[2].1 == nil && reasons[2].2 == "the body is not JSON")
            let inbox = try await h.client.query(
                "SELECT message_id, event_index, type FROM webhook_events", logger: BackendHarness.logger
            ).collect().map { try $0.decode((String, Int, String).self) }
            #expect(inbox.map { "\($0.0)|\($0.1)|\($0.2)" } == ["mixed|1|location"])
            #expect(try await Self.count(h, "SELECT count(*)::int FROM webhook_receipts") == 0)
            #expect(try await Self.count(h, "SELECT count(*)::int FROM webhook_receipt_bodies") == 0)
        }
    }

    @Test("a previous release's receipt, the events its API decoded, is applied as before")
    func previousReleaseReceipt() async throws {
        try await BackendHarness.with(configuration: Self.configuration) { h in
            _ = try await h.api.driver("Dana", device: "OLD")
            let body = Data(
                """
                [{"recorded_at": "\(ISO8601DateFormatter().string(from: Date()))", "device_id": "OLD",
                  "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [13.42, 52.53]}}}]
                """.utf8
            )
            let intake = WebhookIntake(body: body)
            let delivery = try #require(ReceivedDelivery(messageID: "old", intake: intake))
            // As the previous release's API wrote it (WebhookStatements.Receipt v1).
            try await h.client.query(
                """
                WITH receipt AS (
                    INSERT INTO webhook_receipts (message_id, events) VALUES ('old', 1) RETURNING id
                )
                INSERT INTO webhook_receipt_bodies (receipt_id, elements, events, location_devices, has_statuses)
                SELECT id, \(delivery.elements), \(try delivery.storedEvents()), \(delivery.devices), false FROM receipt
                """,
                logger: BackendHarness.logger
            )
            #expect(try await h.applyWebhooks() == 1)
            let moved: PostgresQuery = """
                SELECT count(*)::int FROM driver_positions p JOIN users u ON u.id = p.driver_id
                WHERE u.device_id = 'OLD' AND p.lat = 52.53
                """
            #expect(try await Self.count(h, moved) == 1)
            #expect(try await Self.count(h, "SELECT count(*)::int FROM webhook_receipts") == 0)
            // A body in both forms, or in neither, is refused by the table.
            await #expect(throws: PSQLError.self) {
                try await h.client.query(
                    """
                    WITH receipt AS (INSERT INTO webhook_receipts (message_id) VALUES ('neither') RETURNING id)
                    INSERT INTO webhook_receipt_bodies (receipt_id) SELECT id FROM receipt
                    """,
                    logger: BackendHarness.logger
                )
            }
        }
    }
}
