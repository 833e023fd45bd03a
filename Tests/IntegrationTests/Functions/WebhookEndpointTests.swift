import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

@Suite("Functions: the HyperTrack webhook endpoint", .timeLimit(.minutes(5)))
struct WebhookEndpointTests {
    static func inboxCount(_ client: PostgresClient) async throws -> Int {
        let rows = try await client.query("SELECT count(*) FROM webhook_events", logger: BackendHarness.logger)
        for try await count in rows.decode(Int.self) { return count }
        return -1
    }

    static let body = Data(
        """
        [{"created_at": "2026-11-21T19:00:00Z", "recorded_at": "2026-11-21T19:00:00Z", "device_id": "D1",
          "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}, "version": "2.0.0"},
         {"created_at": "2026-11-21T19:00:01Z", "device_id": "D1", "type": "trip",
          "data": {"value": "destination_arrival", "trip_id": "T1", "trip_metadata": {"leg": "pickup"}}, "version": "2.0.0"}]
        """.utf8
    )

    static func post(
        _ h: BackendHarness,
        body: Data = Self.body,
        signature: String?,
        messageID: String? = "msg-1"
    ) async throws -> APIClient.Reply {
        var headers: [(String, String)] = []
        if let signature { headers.append(("x-hypertrack-signature", signature)) }
        if let messageID { headers.append(("x-amz-sns-message-id", messageID)) }
        return try await h.api.send(.POST, "/v1/hypertrack/webhooks", headers: headers, rawBody: body)
    }

    @Test("a signed delivery is stored, one row per event, and a redelivery stores nothing more")
    func stores() async throws {
        try await BackendHarness.with { h in
            let signature = HMACWebhookSignatureVerifier.signature(for: Self.body, secret: "whsec-test")
            let first = try await Self.post(h, signature: signature)
            #expect(first.status == 202)
            #expect(try await Self.inboxCount(h.client) == 2)
            #expect(try await Self.post(h, signature: signature).status == 202)
            #expect(try await Self.inboxCount(h.client) == 2)
            let rows = try await h.client.query(
                "SELECT type, value, trip_id, latitude FROM webhook_events ORDER BY event_index",
                logger: BackendHarness.logger
            )
            var seen: [String] = []
            for try await (type, value, trip, latitude) in rows.decode((String, String?, String?, Double?).self) {
                seen.append("\(type)|\(value ?? "-")|\(trip ?? "-")|\(latitude.map { "\($0)" } ?? "-")")
            }
            #expect(seen == ["location|-|-|52.5", "trip|destination_arrival|T1|-"])
        }
    }

    @Test("a bad or missing signature is 401 and stores nothing")
    func badSignature() async throws {
        try await BackendHarness.with { h in
            let forged = HMACWebhookSignatureVerifier.signature(for: Self.body, secret: "not-the-secret")
            let reply = try await Self.post(h, signature: forged)
            APITests.expectProblem(reply, 401)
            APITests.expectProblem(try await Self.post(h, signature: nil), 401)
            #expect(try await Self.inboxCount(h.client) == 0)
        }
    }

    @Test("a malformed body or a missing message id is 400 and stores nothing")
    func malformed() async throws {
        try await BackendHarness.with { h in
            for body in [Data("not json".utf8), Data("42".utf8)] {
                let signature = HMACWebhookSignatureVerifier.signature(for: body, secret: "whsec-test")
                APITests.expectProblem(try await Self.post(h, body: body, signature: signature), 400)
            }
            let signature = HMACWebhookSignatureVerifier.signature(for: Self.body, secret: "whsec-test")
            let reply = try await Self.post(h, signature: signature, messageID: nil)
            #expect(reply.status == 400)
            #expect(reply.json["detail"].stringValue?.contains("x-amz-sns-message-id") == true)
            #expect(try await Self.inboxCount(h.client) == 0)
        }
    }

    @Test("without a secret, deliveries are refused unless acceptUnsigned is set explicitly")
    func unsignedConfiguration() async throws {
        try await BackendHarness.with(configuration: .init(webhook: .init(secret: nil))) { h in
            APITests.expectProblem(try await Self.post(h, signature: nil), 401)
            #expect(try await Self.inboxCount(h.client) == 0)
        }
        try await BackendHarness.with(configuration: .init(webhook: .init(secret: nil, acceptUnsigned: true))) {
            (h: BackendHarness) async throws -> Void in
            #expect(try await Self.post(h, signature: nil).status == 202)
            #expect(try await Self.inboxCount(h.client) == 2)
        }
        try await BackendHarness.with(configuration: .init(webhook: .init(secret: "s", acceptUnsigned: true))) {
            (h: BackendHarness) async throws -> Void in
            let forged = HMACWebhookSignatureVerifier.signature(for: Self.body, secret: "wrong")
            APITests.expectProblem(try await Self.post(h, signature: forged), 401, mentioning: "x-hypertrack-signature")
            #expect(try await Self.post(h, signature: nil).status == 202, "unsigned accepted, forged never")
        }
    }
}
