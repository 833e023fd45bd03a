import EmbeddedPostgres
import Foundation
import Functions
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing
import TriggerRuntime

/// Issue 17: sign-in by phone code, sessions, and what they refuse. Time moves by moving rows (every expiry is
/// compared with the database's `now()`), never by waiting.
@Suite("Functions: accounts (codes, sessions, sign-out, devices)", .timeLimit(.minutes(10)))
struct AccountTests {
    static func execute(_ h: BackendHarness, _ sql: String) async throws {
        _ = try await h.client.query(PostgresQuery(unsafeSQL: sql), logger: BackendHarness.logger).collect()
    }

    static func requestCode(
        _ h: BackendHarness,
        _ phone: String,
        role: String = "rider"
    ) async throws -> APIClient.Reply {
        try await h.api.send(.POST, "/v1/auth/code", json: ["phone": .string(phone), "role": .string(role)])
    }

    static func session(_ h: BackendHarness, _ phone: String, _ code: String) async throws -> APIClient.Reply {
        try await h.api.send(.POST, "/v1/auth/session", json: ["phone": .string(phone), "code": .string(code)])
    }

    @Test("the 6th try on a code is refused even with the right code; a new code works")
    func bruteForce() async throws {
        try await BackendHarness.with { h in
            let phone = APIClient.newPhone()
            #expect(try await Self.requestCode(h, phone).status == 202)
            let code = try await h.api.accounts.code(for: phone)
            let wrong = code == "000000" ? "111111" : "000000"
            for attempt in 1...5 {
                let reply = try await Self.session(h, phone, wrong)
                APITests.expectProblem(reply, 401, mentioning: "\(5 - attempt) tries left")
            }
            APITests.expectProblem(try await Self.session(h, phone, code), 429, mentioning: "too many wrong tries")
            #expect(try await Self.requestCode(h, phone).status == 202)
            let fresh = try await h.api.accounts.code(for: phone)
            #expect(try await Self.session(h, phone, fresh).status == 201)
            APITests.expectProblem(try await Self.session(h, phone, fresh), 401, mentioning: "no unused")
        }
    }

    @Test("at most 5 codes per phone per hour, with Retry-After; other phones are not limited; an hour later it is")
    func rateLimit() async throws {
        try await BackendHarness.with { h in
            let phone = APIClient.newPhone()
            for _ in 1...5 { #expect(try await Self.requestCode(h, phone).status == 202) }
            let limited = try await Self.requestCode(h, phone)
            APITests.expectProblem(limited, 429, mentioning: "5 codes")
            let retryAfter = limited.headers.first { $0.0.lowercased() == "retry-after" }.flatMap { Int($0.1) }
            #expect((1...3600).contains(retryAfter ?? 0), "Retry-After: \(String(describing: retryAfter))")
            #expect(try await Self.requestCode(h, APIClient.newPhone()).status == 202)
            try await Self.execute(h, "UPDATE auth_codes SET created_at = created_at - interval '1 hour'")
            #expect(try await Self.requestCode(h, phone).status == 202)
            let rows = try await h.client.query("SELECT code_hash, salt FROM auth_codes", logger: BackendHarness.logger)
            var salts: Set<String> = []
            for try await (hash, salt) in rows.decode((String, String).self) {
                #expect(hash.count == 64)
                salts.insert(salt)
            }
            #expect(salts.count == 7, "a salt per code")
        }
    }

    @Test("an expired code is refused")
    func expiredCode() async throws {
        try await BackendHarness.with { h in
            let phone = APIClient.newPhone()
            #expect(try await Self.requestCode(h, phone).status == 202)
            let code = try await h.api.accounts.code(for: phone)
            try await Self.execute(h, "UPDATE auth_codes SET expires_at = now() - interval '1 second'")
            APITests.expectProblem(try await Self.session(h, phone, code), 401, mentioning: "no unused")
        }
    }

    @Test("refresh rotates the pair; reusing a refresh token revokes the whole session")
    func refreshReuse() async throws {
        try await BackendHarness.with { h in
            let first = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider")
            let refreshed = try await h.api.send(
                .POST,
                "/v1/auth/refresh",
                json: ["refresh_token": .string(first.refreshToken)]
            )
            #expect(refreshed.status == 200)
            let access = try #require(refreshed.json["access_token"].stringValue)
            let refresh = try #require(refreshed.json["refresh_token"].stringValue)
            #expect(access != first.accessToken && refresh != first.refreshToken)
            #expect(try await h.api.send(.GET, "/v1/me", token: access).status == 200)
            let reuse = try await h.api.send(
                .POST,
                "/v1/auth/refresh",
                json: ["refresh_token": .string(first.refreshToken)]
            )
            APITests.expectProblem(reuse, 401, mentioning: "already used")
            for token in [access, first.accessToken] {
                APITests.expectProblem(try await h.api.send(.GET, "/v1/me", token: token), 401)
            }
            let after = try await h.api.send(.POST, "/v1/auth/refresh", json: ["refresh_token": .string(refresh)])
            APITests.expectProblem(after, 401, mentioning: "not valid")
        }
    }

    @Test("sign-out revokes at once; sessions are listed and revocable; an expired access token is refused")
    func signOutAndSessions() async throws {
        try await BackendHarness.with { h in
            let phone = APIClient.newPhone()
            let a = try await h.api.signIn(phone: phone, role: "rider")
            let b = try await h.api.signIn(phone: phone, role: "rider")
            #expect(a.userID == b.userID, "one account per phone and role")
            let listed = try await h.api.send(.GET, "/v1/me/sessions", token: a.accessToken)
            #expect(listed.json["sessions"].arrayValue.count == 2)
            #expect(
                listed.json["sessions"].arrayValue.filter { $0["current"] == true }.map { $0["id"] } == [
                    .string(a.sessionID)
                ]
            )
            #expect(try await h.api.send(.DELETE, "/v1/me/sessions/\(b.sessionID)", token: a.accessToken).status == 204)
            APITests.expectProblem(try await h.api.send(.GET, "/v1/me", token: b.accessToken), 401)
            APITests.expectProblem(
                try await h.api.send(.DELETE, "/v1/me/sessions/\(b.sessionID)", token: a.accessToken),
                404
            )
            let other = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider")
            APITests.expectProblem(
                try await h.api.send(.DELETE, "/v1/me/sessions/\(a.sessionID)", token: other.accessToken),
                404
            )
            #expect(try await h.api.send(.POST, "/v1/auth/signout", token: a.accessToken).status == 204)
            APITests.expectProblem(try await h.api.send(.GET, "/v1/me", token: a.accessToken), 401)
            let c = try await h.api.signIn(phone: phone, role: "rider")
            try await Self.execute(
                h,
                "UPDATE auth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'access'"
            )
            APITests.expectProblem(try await h.api.send(.GET, "/v1/me", token: c.accessToken), 401)
            let refreshed = try await h.api.send(
                .POST,
                "/v1/auth/refresh",
                json: ["refresh_token": .string(c.refreshToken)]
            )
            #expect(refreshed.status == 200, "the refresh token outlives the access token")
        }
    }

    @Test("a token issued before sign-in by code works until it expires; the first sign-in adopts its account")
    func legacyTokens() async throws {
        try await BackendHarness.with { h in
            let rows = try await h.client.query(
                "INSERT INTO users (role, name, phone) VALUES ('rider', 'Old', '+49 30 7777') RETURNING id",
                logger: BackendHarness.logger
            )
            var id: UUID?
            for try await value in rows.decode(UUID.self) { id = value }
            let user = try #require(id)
            try await Self.execute(
                h,
                """
                INSERT INTO api_tokens (token_hash, user_id, expires_at)
                VALUES (encode(sha256('rs_legacy'::bytea), 'hex'), '\(user)', now() + interval '30 days')
                """
            )
            #expect(try await h.api.send(.GET, "/v1/me", token: "rs_legacy").json["name"] == "Old")
            let session = try await h.api.signIn(phone: "+49 30 7777", role: "rider")
            #expect(session.userID.lowercased() == user.uuidString.lowercased(), "the account was adopted")
            try await Self.execute(h, "UPDATE api_tokens SET expires_at = now() - interval '1 second'")
            APITests.expectProblem(try await h.api.send(.GET, "/v1/me", token: "rs_legacy"), 401)
        }
    }

    @Test("migration 0015 gives the existing tokens 30 days")
    func migrationKeepsTokens() async throws {
        try await TestDatabase.shared.withDatabase(logger: BackendHarness.logger) { client, _ in
            let (migrator, all) = try await BackendHarness.migrate(client, upTo: "0015_accounts")
            _ = try await client.query(
                """
                WITH u AS (INSERT INTO users (role, name, phone, device_id, car_model, car_plate)
                           VALUES ('driver', 'D', '+4930', 'DEV', 'M', 'P') RETURNING id)
                INSERT INTO api_tokens (token_hash, user_id) SELECT repeat('a', 64), id FROM u
                """,
                logger: BackendHarness.logger
            ).collect()
            try await migrator.migrate(all)
            let rows = try await client.query(
                "SELECT extract(epoch FROM expires_at - now())::float8 FROM api_tokens",
                logger: BackendHarness.logger
            )
            for try await seconds in rows.decode(Double.self) {
                #expect(abs(seconds - 30 * 86_400) < 600, "\(seconds)")
            }
        }
    }

    @Test("pruneAccounts deletes old codes, expired access tokens and long-ended sessions; reuse is still caught")
    func pruning() async throws {
        try await BackendHarness.with { h in
            let a = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider")
            let refresh: JSONValue = ["refresh_token": .string(a.refreshToken)]
            #expect(try await h.api.send(.POST, "/v1/auth/refresh", json: refresh).status == 200)
            let b = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider")
            #expect(try await h.api.send(.POST, "/v1/auth/signout", token: b.accessToken).status == 204)
            for statement in [
                "UPDATE auth_sessions SET revoked_at = now() - interval '31 days' WHERE id = '\(b.sessionID)'",
                "UPDATE auth_codes SET created_at = now() - interval '2 days'",
                "UPDATE auth_tokens SET expires_at = now() - interval '2 days' WHERE kind = 'access'",
            ] {
                try await Self.execute(h, statement)
            }
            try await h.client.withTransaction(logger: BackendHarness.logger) { connection in
                let context = FunctionContext(
                    eventID: 1, functionName: PruneAccounts.name, operation: .tick, table: "", documentKey: "",
                    commitTime: Date(), attempt: 1, logger: BackendHarness.logger, transaction: connection
                )
                try await PruneAccounts().run(ScheduleTick(scheduledAt: Date()), context: context)
            }
            let left = try await h.client.query(
                """
                SELECT (SELECT count(*) FROM auth_codes)::int8, (SELECT count(*) FROM auth_sessions)::int8,
                       (SELECT count(*) FROM auth_tokens WHERE kind = 'access')::int8,
                       (SELECT count(*) FROM auth_tokens WHERE kind = 'refresh')::int8
                """,
                logger: BackendHarness.logger
            )
            for try await counts in left.decode((Int, Int, Int, Int).self) {
                #expect(counts.0 == 0 && counts.1 == 1 && counts.2 == 0 && counts.3 == 2, "\(counts)")
            }
            let reuse = try await h.api.send(.POST, "/v1/auth/refresh", json: refresh)
            APITests.expectProblem(reuse, 401, mentioning: "already used")
        }
    }
}
