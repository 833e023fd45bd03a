import EmbeddedPostgres
import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing
import TriggerRuntime

@Suite("Functions: the HyperTrack webhook endpoint", .timeLimit(.minutes(10)))
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
        messageID: String? = "msg-1",
        path: String = "/v1/hypertrack/webhooks",
        headers extra: [(String, String)] = [],
        apply: Bool = true
    ) async throws -> APIClient.Reply {
        var headers: [(String, String)] = extra
        if let signature { headers.append(("x-hypertrack-signature", signature)) }
        if let messageID { headers.append(("x-amz-sns-message-id", messageID)) }
        let reply = try await h.api.send(.POST, path, headers: headers, rawBody: body)
        // The worker's part (this harness runs none): the delivery applied, as it would be in a moment.
        if apply { try await h.applyWebhooks() }
        return reply
    }

    static func count(_ client: PostgresClient, _ query: PostgresQuery) async throws -> Int {
        for try await count in try await client.query(query, logger: BackendHarness.logger).decode(Int.self) {
            return count
        }
        return -1
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
            // Each row's payload is its event exactly as sent.
            let body = String(decoding: Self.body, as: UTF8.self)
            let same = try await h.client.query(
                "SELECT count(*)::int FROM webhook_events WHERE payload = (\(body)::jsonb -> event_index)",
                logger: BackendHarness.logger
            ).collect().map { try $0.decode(Int.self) }
            #expect(same == [2])
        }
    }

    @Test("applied by the worker: the 202 is the delivery stored as received; applyWebhookDelivery applies it, keeping what drives open then read")
    func receivedThenApplied() async throws {
        let configuration = Backend.Configuration(webhook: .init(secret: "whsec-test", apply: .worker))
        try await BackendHarness.with(configuration: configuration) { h in
            _ = try await h.api.driver("Dana", device: "RCPT")
            try await h.client.query(
                """
                INSERT INTO order_legs (order_id, leg, device_id, trip_id, status, created_at)
                VALUES (gen_random_uuid(), 'pickup', 'RCPT', 'RCPT-TRIP', 'active', now() - interval '10 minutes')
                """,
                logger: BackendHarness.logger
            )
            let body = Data(
                """
                [{"recorded_at": "\(ISO8601DateFormatter().string(from: Date()))", "device_id": "RCPT", "type": "location",
                  "data": {"geometry": {"type": "Point", "coordinates": [13.41, 52.51]}}, "version": "2.0.0"}]
                """.utf8
            )
            let signature = HMACWebhookSignatureVerifier.signature(for: body, secret: "whsec-test")
            let reply = try await Self.post(h, body: body, signature: signature, messageID: "rcpt", apply: false)
            #expect(reply.status == 202)
            #expect(reply.json["detail"].stringValue == "\(body.count) bytes received; the events are applied in a moment")
            // Stored as received, nothing applied: no inbox row, the driver not moved.
            #expect(try await Self.count(h.client, "SELECT count(*)::int FROM webhook_receipts") == 1)
            #expect(try await Self.count(h.client, "SELECT count(*)::int FROM webhook_receipt_bodies") == 1)
            #expect(try await Self.inboxCount(h.client) == 0)
            let moved: PostgresQuery = """
                SELECT count(*)::int FROM driver_positions p JOIN users u ON u.id = p.driver_id
                WHERE u.device_id = 'RCPT' AND p.lat = 52.51
                """
            #expect(try await Self.count(h.client, moved) == 0)
            // The drive ends after the delivery was received and before it is applied: its location is the drive's.
            try await h.client.query(
                "UPDATE order_legs SET status = 'completed', completed_at = now() WHERE trip_id = 'RCPT-TRIP'",
                logger: BackendHarness.logger
            )
            #expect(try await h.applyWebhooks() == 1)
            #expect(try await Self.count(h.client, moved) == 1)
            #expect(try await Self.count(h.client, "SELECT count(*)::int FROM webhook_receipts") == 0)
            #expect(try await Self.count(h.client, "SELECT count(*)::int FROM webhook_receipt_bodies") == 0)
            let kept: PostgresQuery = """
                SELECT count(*)::int FROM webhook_events w JOIN order_legs l ON l.trip_id = 'RCPT-TRIP'
                WHERE w.device_id = 'RCPT' AND w.outcome = 'applied: position' AND w.received_at < l.completed_at
                """
            #expect(try await Self.count(h.client, kept) == 1, "stored with the receipt's time, kept for the drive")
            // Nothing is left to apply, and the same delivery again changes nothing.
            #expect(try await h.applyWebhooks() == 0)
            #expect(try await Self.post(h, body: body, signature: signature, messageID: "rcpt").status == 202)
            #expect(try await Self.inboxCount(h.client) == 1)
        }
    }

    @Test("each event gets its ordering key: a device's positions and statuses share one, a trip's events another")
    func orderingKeys() async throws {
        try await BackendHarness.with { h in
            let body = Data(
                """
                [{"created_at": "2026-11-21T19:00:00Z", "device_id": "D1", "type": "location",
                  "data": {"geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}, "version": "2.0.0"},
                 {"created_at": "2026-11-21T19:00:01Z", "device_id": "D1", "type": "device_status",
                  "data": {"value": "inactive"}, "version": "2.0.0"},
                 {"created_at": "2026-11-21T19:00:02Z", "device_id": "D1", "type": "trip",
                  "data": {"value": "destination_arrival", "trip_id": "T1"}, "version": "2.0.0"},
                 {"created_at": "2026-11-21T19:00:03Z", "device_id": "D2", "type": "location",
                  "data": {"geometry": {"type": "Point", "coordinates": [13.5, 52.4]}}, "version": "2.0.0"}]
                """.utf8
            )
            let signature = HMACWebhookSignatureVerifier.signature(for: body, secret: "whsec-test")
            #expect(try await Self.post(h, body: body, signature: signature, messageID: "msg-keys").status == 202)
            let rows = try await h.client.query(
                "SELECT ordering_key FROM webhook_events ORDER BY event_index",
                logger: BackendHarness.logger
            )
            var keys: [String] = []
            for try await key in rows.decode(String.self) { keys.append(key) }
            #expect(keys == ["device:D1", "device:D1", "trip:T1", "device:D2"])
            // The constraint holds for every new row, whoever writes it.
            await #expect(throws: PSQLError.self) {
                try await h.client.query(
                    """
                    INSERT INTO webhook_events (message_id, event_index, type, payload, content_key)
                    VALUES ('m', 0, 'battery', '{}', 'k')
                    """,
                    logger: BackendHarness.logger
                )
            }
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

    @Test("an authentic but malformed body is accepted and recorded as rejected; a missing message id is 400")
    func malformed() async throws {
        try await BackendHarness.with { h in
            for body in [Data("not json".utf8), Data("42".utf8)] {
                let signature = HMACWebhookSignatureVerifier.signature(for: body, secret: "whsec-test")
                let reply = try await Self.post(h, body: body, signature: signature, messageID: "bad-\(body.count)")
                #expect(reply.status == 202, "HyperTrack would never resend a 4xx")
                #expect(reply.json["detail"].stringValue?.contains("1 rejected") == true)
            }
            #expect(try await Self.count(h.client, "SELECT count(*)::int FROM webhook_rejections") == 2)
            let signature = HMACWebhookSignatureVerifier.signature(for: Self.body, secret: "whsec-test")
            let reply = try await Self.post(h, signature: signature, messageID: nil)
            #expect(reply.status == 400)
            #expect(reply.json["detail"].stringValue?.contains("x-amz-sns-message-id") == true)
            #expect(try await Self.inboxCount(h.client) == 0, "rejections are not inbox rows: no function runs on them")
        }
    }

    @Test("bad events of an authentic delivery are rejected one by one, with the reason; the good ones are stored")
    func badEvents() async throws {
        let body = Data(
            """
            [{"created_at": "2026-11-21T19:00:00Z", "recorded_at": "2026-11-21T19:00:00Z", "device_id": "D1",
              "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [13.4, 152.5]}}},
             {"created_at": "2026-11-21T19:00:00Z", "device_id": "D1", "type": "teleport", "data": {"value": "x"}},
             "not an event",
             {"created_at": "2026-11-21T19:00:02Z", "recorded_at": "2026-11-21T19:00:02Z", "device_id": "D1",
              "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}}]
            """.utf8
        )
        try await BackendHarness.with { h in
            let signature = HMACWebhookSignatureVerifier.signature(for: body, secret: "whsec-test")
            let reply = try await Self.post(h, body: body, signature: signature)
            #expect(reply.status == 202)
            #expect(reply.json["detail"] == "1 event received, 3 rejected")
            #expect(try await Self.inboxCount(h.client) == 1)
            let reasons = try await h.client.query(
                "SELECT event_index, reason FROM webhook_rejections ORDER BY event_index", logger: BackendHarness.logger
            ).collect().map { try $0.decode((Int, String).self) }
            #expect(reasons.map(\.0) == [0, 1, 2])
            #expect(reasons[0].1.contains("out of range"))
            #expect(reasons[1].1.contains("unknown event type \"teleport\""))
        }
    }

    @Test("an event with a NUL character (which jsonb cannot hold) is rejected, the rest of its delivery stored")
    func nulCharacter() async throws {
        let body = Data(
            #"""
            [{"created_at": "2026-11-21T19:00:00Z", "recorded_at": "2026-11-21T19:00:00Z", "device_id": "D\u0000",
              "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}},
             {"created_at": "2026-11-21T19:00:02Z", "recorded_at": "2026-11-21T19:00:02Z", "device_id": "D1",
              "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}}]
            """#.utf8
        )
        try await BackendHarness.with { h in
            let signature = HMACWebhookSignatureVerifier.signature(for: body, secret: "whsec-test")
            let reply = try await Self.post(h, body: body, signature: signature)
            #expect(reply.status == 202)
            #expect(reply.json["detail"] == "1 event received, 1 rejected")
            let stored = try await h.client.query(
                "SELECT event_index, payload ->> 'device_id' FROM webhook_events", logger: BackendHarness.logger
            ).collect().map { try $0.decode((Int, String).self) }
            #expect(stored.map(\.0) == [1] && stored.map(\.1) == ["D1"])
            let rejected = try await h.client.query(
                "SELECT event_index, reason, payload ->> 'device_id' FROM webhook_rejections",
                logger: BackendHarness.logger
            ).collect().map { try $0.decode((Int, String, String).self) }
            #expect(rejected.count == 1)
            #expect(rejected.first?.0 == 0 && rejected.first?.1.contains("NUL") == true)
            #expect(rejected.first?.2 == "D\u{FFFD}")
        }
    }

    @Test("a 4 MB delivery (trip summaries make batches large) is stored whole; one over the bound is 413, nothing stored")
    func largeDelivery() async throws {
        // 300 completed trips, each with a 700-point route in its summary (~13 KB, the largest the 10,000-driver
        // city sent): a delivery the former 1 MiB bound answered 413, which HyperTrack never sends again.
        let coordinates = (0..<700).map { "[13.\(4000 + $0), 52.\(5000 + $0)]" }.joined(separator: ",")
        let events = (0..<300).map { index in
            """
            {"created_at": "2026-11-21T19:00:00Z", "device_id": "D\(index)", "type": "trip", "version": "2.0.0",
             "data": {"value": "completed", "trip_id": "T\(index)", "summary": {"distance": 4000, "duration": 600,
              "locations": {"type": "LineString", "coordinates": [\(coordinates)]}}}}
            """
        }
        let body = Data(("[" + events.joined(separator: ",") + "]").utf8)
        #expect(body.count > 4_000_000)
        try await BackendHarness.with { h in
            let signature = HMACWebhookSignatureVerifier.signature(for: body, secret: "whsec-test")
            let reply = try await Self.post(h, body: body, signature: signature)
            #expect(reply.status == 202)
            #expect(reply.json["detail"] == "300 events received")
            #expect(try await Self.inboxCount(h.client) == 300)
            // The bound is still there, with a problem body, and nothing of the refused delivery is stored.
            let huge = Data(repeating: UInt8(ascii: " "), count: 33 * 1024 * 1024)
            let refused = try await Self.post(h, body: huge, signature: "x", messageID: "msg-huge")
            #expect(refused.status == 413)
            #expect(refused.json["status"] == 413)
            #expect(try await Self.inboxCount(h.client) == 300)
        }
    }

    @Test("a replay under a new message id changes nothing: events are deduplicated by content")
    func replayUnderNewID() async throws {
        try await BackendHarness.with { h in
            let signature = HMACWebhookSignatureVerifier.signature(for: Self.body, secret: "whsec-test")
            #expect(try await Self.post(h, signature: signature, messageID: "first").json["detail"] == "2 events received")
            let replay = try await Self.post(h, signature: signature, messageID: "replayed-under-a-new-id")
            #expect(replay.status == 202)
            #expect(replay.json["detail"] == "2 events received")
            #expect(try await Self.inboxCount(h.client) == 2)
        }
    }

    /// The previous release's `content_key` of `Self.body`'s location event, computed here in SQL from the recipe
    /// (hex SHA-256 of type, device, trip, value, microseconds and position joined by U+001F), not by the intake.
    static let previousKey = """
        encode(sha256(convert_to(concat_ws(chr(31), 'location', 'D1', '', '',
            (extract(epoch FROM timestamptz '2026-11-21T19:00:00Z') * 1000000)::int8::text, '52.5', '13.4'),
            'UTF8')), 'hex')
        """

    @Test("0027: an event's content id is its old content key's first half, whichever release stored or replays it")
    func contentIDs() async throws {
        try await BackendHarness.with { h in
            let signature = HMACWebhookSignatureVerifier.signature(for: Self.body, secret: "whsec-test")
            #expect(try await Self.post(h, signature: signature).json["detail"] == "2 events received")
            let same = try await Self.count(
                h.client,
                PostgresQuery(
                    unsafeSQL: """
                        SELECT count(*)::int FROM webhook_events
                        WHERE type = 'location' AND content_key IS NULL
                          AND content_id = left(\(Self.previousKey), 32)::uuid
                        """
                )
            )
            #expect(same == 1)
            // A process of the previous release replays it under a new message id: its key, through the trigger,
            // is the same id, and nothing is stored.
            func previous(_ key: String) -> String {
                """
                INSERT INTO webhook_events (message_id, event_index, type, device_id, payload, content_key, ordering_key)
                VALUES ($1, 0, 'location', 'D1', '{}', \(key), 'device:D1') ON CONFLICT DO NOTHING RETURNING id
                """
            }
            var replay = PostgresQuery(unsafeSQL: previous(Self.previousKey))
            replay.binds.append("old-release-replay")
            #expect(try await h.client.query(replay, logger: BackendHarness.logger).collect().isEmpty)
            #expect(try await Self.inboxCount(h.client) == 2)
            // A new event from it gets its id from its key.
            var other = PostgresQuery(unsafeSQL: previous("repeat('ab', 32)"))
            other.binds.append("old-release-new")
            _ = try await h.client.query(other, logger: BackendHarness.logger).collect()
            let derived = try await Self.count(
                h.client,
                "SELECT count(*)::int FROM webhook_events WHERE content_id = 'abababab-abab-abab-abab-abababababab'"
            )
            #expect(derived == 1)
        }
    }

    @Test("0027 gives the rows stored before it their content ids: a hash key's first half, a legacy key's md5")
    func contentIDMigration() async throws {
        try await TestDatabase.shared.withDatabase(logger: BackendHarness.logger) { client, _ in
            let (migrator, all) = try await BackendHarness.migrate(client, upTo: "0027_content_ids")
            try await client.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO webhook_events (message_id, event_index, type, device_id, payload, content_key,
                                                    ordering_key)
                        VALUES ('m1', 0, 'location', 'D1', '{}', \(Self.previousKey), 'device:D1'),
                               ('m0', 0, 'location', 'D1', '{}', 'legacy:7', 'device:D1')
                        """
                ),
                logger: BackendHarness.logger
            )
            try await migrator.migrate(all)
            let ids = try await client.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT message_id, content_id = CASE message_id
                            WHEN 'm1' THEN left(\(Self.previousKey), 32)::uuid ELSE md5('legacy:7')::uuid END
                        FROM webhook_events ORDER BY message_id
                        """
                ),
                logger: BackendHarness.logger
            ).collect().map { try $0.decode((String, Bool).self) }
            let messages = ids.map { $0.0 }
            let derived = ids.filter { $0.1 }.count
            #expect(messages == ["m0", "m1"])
            #expect(derived == 2)
        }
    }

    @Test("a secret in the URL: right is stored, wrong or missing is 401; two secrets during a rotation")
    func pathSecrets() async throws {
        let configuration = Backend.Configuration(webhook: .init(pathSecrets: ["old-secret", "new-secret"]))
        try await BackendHarness.with(configuration: configuration) { h in
            APITests.expectProblem(try await Self.post(h, signature: nil), 401, mentioning: "secret")
            APITests.expectProblem(
                try await Self.post(h, signature: nil, path: "/v1/hypertrack/webhooks/guess"), 401, mentioning: "secret"
            )
            #expect(try await Self.inboxCount(h.client) == 0)
            let old = try await Self.post(h, signature: nil, messageID: "a", path: "/v1/hypertrack/webhooks/old-secret")
            #expect(old.status == 202)
            let body = Data(String(decoding: Self.body, as: UTF8.self).replacingOccurrences(of: "19:00:0", with: "19:30:0").utf8)
            let new = try await Self.post(
                h, body: body, signature: nil, messageID: "b", path: "/v1/hypertrack/webhooks/new-secret"
            )
            #expect(new.status == 202)
            #expect(try await Self.inboxCount(h.client) == 4)
        }
        // With the HMAC scheme on as well, both must hold.
        let both = Backend.Configuration(webhook: .init(pathSecrets: ["s1"], secret: "hmac"))
        try await BackendHarness.with(configuration: both) { h in
            let path = "/v1/hypertrack/webhooks/s1"
            APITests.expectProblem(try await Self.post(h, signature: nil, path: path), 401, mentioning: "x-hypertrack-signature")
            let signature = HMACWebhookSignatureVerifier.signature(for: Self.body, secret: "hmac")
            #expect(try await Self.post(h, signature: signature, path: path).status == 202)
        }
    }

    @Test("an SNS subscription confirmation is answered 200 and stores nothing; its URL is logged, not fetched")
    func subscriptionConfirmation() async throws {
        let body = Data(
            """
            {"Type": "SubscriptionConfirmation", "MessageId": "m", "Token": "t", "TopicArn": "arn:aws:sns:x",
             "SubscribeURL": "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=t"}
            """.utf8
        )
        try await BackendHarness.with(configuration: .init(webhook: .init(pathSecrets: ["s1"]))) { h in
            let reply = try await Self.post(
                h, body: body, signature: nil, messageID: "m", path: "/v1/hypertrack/webhooks/s1",
                headers: [("x-amz-sns-message-type", "SubscriptionConfirmation")]
            )
            #expect(reply.status == 200)
            #expect(reply.json["status"] == "received")
            #expect(try await Self.inboxCount(h.client) == 0)
            APITests.expectProblem(
                try await Self.post(
                    h, body: body, signature: nil, messageID: "m", path: "/v1/hypertrack/webhooks/wrong",
                    headers: [("x-amz-sns-message-type", "SubscriptionConfirmation")]
                ),
                401
            )
        }
    }

    @Test("pruneWebhookEvents deletes processed locations and rejections past the retention, keeps everything else")
    func retention() async throws {
        try await BackendHarness.with { h in
            let signature = HMACWebhookSignatureVerifier.signature(for: Self.body, secret: "whsec-test")
            #expect(try await Self.post(h, signature: signature).status == 202)
            let bad = Data("42".utf8)
            let badSignature = HMACWebhookSignatureVerifier.signature(for: bad, secret: "whsec-test")
            #expect(try await Self.post(h, body: bad, signature: badSignature, messageID: "bad").status == 202)
            // Eight days ago: the location and the trip event were processed, the rejection recorded.
            for statement in [
                "UPDATE webhook_events SET received_at = now() - interval '8 days', processed_at = now() - interval '8 days'",
                "UPDATE webhook_rejections SET received_at = now() - interval '8 days'",
            ] {
                try await h.client.query(PostgresQuery(unsafeSQL: statement), logger: BackendHarness.logger)
            }
            try await h.client.withTransaction(logger: BackendHarness.logger) { connection in
                let context = FunctionContext(
                    eventID: 1, functionName: PruneWebhookEvents.name, operation: .tick, table: "", documentKey: "",
                    commitTime: Date(), attempt: 1, logger: BackendHarness.logger, transaction: connection
                )
                try await PruneWebhookEvents(retention: .seconds(7 * 86_400)).run(
                    ScheduleTick(scheduledAt: Date()), context: context
                )
            }
            let left = try await h.client.query("SELECT type FROM webhook_events", logger: BackendHarness.logger)
                .collect().map { try $0.decode(String.self) }
            #expect(left == ["trip"], "the location went after 7 days; trip events stay 30")
            #expect(try await Self.count(h.client, "SELECT count(*)::int FROM webhook_rejections") == 0)
        }
    }

    @Test("with no path secret and no signing key, deliveries are refused unless acceptUnsigned is set explicitly")
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
