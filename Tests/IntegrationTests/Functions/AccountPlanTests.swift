import EmbeddedPostgres
import Foundation
import PostgresNIO
import Testing

@testable import Functions

/// A first sign-in's adoption of an account made before sign-in by code (``AccountStore/adoption(phone:role:)``), as
/// PostgreSQL runs it among many accounts.
@Suite("Functions: a first sign-in's lookup of older accounts", .timeLimit(.minutes(10)))
struct AccountPlanTests {
    static let logger = BackendHarness.logger

    @Test("0030: a first sign-in finds the account typed before sign-in by index, not by reading every user")
    func adoptionByIndex() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            // 10,000 signed-in riders and the one account from before, its phone as it was typed, analysed (as
            // autovacuum has them in a running city).
            try await client.query(
                """
                INSERT INTO users (role, name, phone, phone_verified_at)
                SELECT 'rider', 'Rita ' || i, '+4931' || lpad(i::text, 7, '0'), now()
                FROM generate_series(1, 10000) AS i
                """,
                logger: Self.logger
            )
            var found: UUID?
            for try await id in try await client.query(
                "INSERT INTO users (role, name, phone) VALUES ('rider', 'Old', '+49 30 7777') RETURNING id",
                logger: Self.logger
            ).decode(UUID.self) {
                found = id
            }
            let legacy = try #require(found)
            try await client.query("ANALYZE users", logger: Self.logger)

            let adoption = AccountStore.adoption(phone: "+49307777", role: .rider)
            let (plan, adopted) = try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: Self.logger)
                var plan = ""
                for try await line in try await connection.query(
                    PostgresQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) " + adoption.sql, binds: adoption.binds),
                    logger: Self.logger
                ).decode(String.self) {
                    plan += line
                }
                var adopted: [UUID] = []
                for try await id in try await connection.query(adoption, logger: Self.logger).decode(UUID.self) {
                    adopted.append(id)
                }
                try await connection.query("ROLLBACK", logger: Self.logger)
                return (plan, adopted)
            }
            #expect(adopted == [legacy], "the account typed as +49 30 7777 is the sign-in's")
            // Without 0030's index: a sequential scan of the 10,001 users.
            let scans = WebhookStatementPlanTests.scans(try JSONSerialization.jsonObject(with: Data(plan.utf8)))
            #expect(!scans.contains("Seq Scan users"), "\(scans)\n\(plan)")
        }
    }
}
