import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import TriggerRuntime

/// Accounts' queries: who a token belongs to, sign-in codes, sessions and profiles. Every expiry is compared with
/// the database's `now()`, never the process's clock, so every process agrees and tests move time by moving rows.
struct AccountStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    let settings: Backend.Configuration.Auth

    /// The caller an access token (or a pre-session token, until it expires) belongs to.
    func caller(tokenHash: String) async throws -> Caller? {
        let statement = PreparedStatements.SessionCaller(tokenHash: tokenHash)
        let sessions = try await self.client.rows(statement, logger: self.logger)
        if let (id, role, session) = sessions.first {
            return UserRole(rawValue: role).map { Caller(id: id, role: $0, sessionID: session, tokenHash: tokenHash) }
        }
        return try await self.client.row(
            """
            SELECT u.id, u.role FROM api_tokens t JOIN users u ON u.id = t.user_id
            WHERE t.token_hash = \(tokenHash) AND t.expires_at > now()
            """,
            logger: self.logger
        ) { row -> Caller? in
            let (id, role) = try row.decode((UUID, String).self)
            return UserRole(rawValue: role).map { Caller(id: id, role: $0, tokenHash: tokenHash) }
        } ?? nil
    }

    /// The outcome of a code request.
    enum CodeRequest: Sendable {
        case sent(CodeMessage)
        case tooMany(retryAfter: Int)
    }

    /// Records a new code for `phone` unless the phone had ``Backend/Configuration/Auth/codesPerHour`` codes in the
    /// last hour. Serialised per phone (a transaction-scoped advisory lock), so concurrent requests cannot both pass
    /// the limit. The code is delivered by the caller after the commit.
    func requestCode(phone: String, role: UserRole) async throws -> CodeRequest {
        let code = Tokens.code()
        let salt = Tokens.salt()
        let hash = Tokens.codeHash(code, salt: salt)
        let limit = self.settings.codesPerHour
        let ttl = self.settings.codeTTL.seconds
        let logger = self.logger
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            try await connection.count(
                "SELECT pg_advisory_xact_lock(hashtext('auth_codes:' || \(phone)))",
                logger: logger
            )
            let recent = try await connection.row(
                """
                SELECT count(*)::int8, ceil(extract(epoch FROM min(created_at) + interval '1 hour' - now()))::int8
                FROM auth_codes WHERE phone = \(phone) AND created_at > now() - interval '1 hour'
                """,
                logger: logger
            ) { try $0.decode((Int, Int?).self) }
            if let recent, recent.0 >= limit {
                return .tooMany(retryAfter: max(recent.1 ?? 1, 1))
            }
            let expires = try await connection.row(
                """
                INSERT INTO auth_codes (phone, role, salt, code_hash, expires_at)
                VALUES (\(phone), \(role.rawValue), \(salt), \(hash), now() + make_interval(secs => \(ttl)))
                RETURNING expires_at
                """,
                logger: logger
            ) { try $0.decode(Date.self) }
            return .sent(CodeMessage(phone: phone, role: role, code: code, expiresAt: expires ?? Date()))
        }
    }

    /// The outcome of trying a code.
    enum CodeCheck: Sendable {
        case signedIn(SessionTokens)
        case noCode
        case wrong(remaining: Int)
        case exhausted
    }

    /// Tries `code` against the phone's latest code (older ones no longer work). Every try counts, and is committed even when it fails; once a
    /// code has had ``Backend/Configuration/Auth/codeMaxAttempts`` tries, it is refused even when right. The right
    /// code is used up, and signs in to the verified account of the phone and the code's role: the existing one,
    /// else the oldest account registered with that phone before sign-in by code (adopted), else a new one.
    func checkCode(phone: String, code: String) async throws -> CodeCheck {
        let logger = self.logger
        let maxAttempts = self.settings.codeMaxAttempts
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            // Only the phone's latest code counts: asking for a new one retires the older ones.
            let latest = try await connection.row(
                """
                SELECT id, role, salt, code_hash, attempts, used_at IS NULL AND expires_at > now() FROM auth_codes
                WHERE phone = \(phone)
                ORDER BY created_at DESC LIMIT 1 FOR UPDATE
                """,
                logger: logger
            ) { try $0.decode((UUID, String, String, String, Int, Bool).self) }
            guard let (id, roleText, salt, stored, attempts, live) = latest, live,
                let role = UserRole(rawValue: roleText)
            else { return .noCode }
            guard attempts < maxAttempts else { return .exhausted }
            try await connection.count(
                "UPDATE auth_codes SET attempts = attempts + 1 WHERE id = \(id) RETURNING id",
                logger: logger
            )
            guard Tokens.equal(Tokens.codeHash(code, salt: salt), stored) else {
                return .wrong(remaining: maxAttempts - attempts - 1)
            }
            try await connection.count(
                "UPDATE auth_codes SET used_at = now() WHERE id = \(id) RETURNING id",
                logger: logger
            )
            let userID = try await Self.verifiedUser(phone: phone, role: role, connection: connection, logger: logger)
            return .signedIn(try await self.openSession(userID: userID, role: role, connection: connection))
        }
    }

    /// Verifies the oldest account of `phone` and `role` made before sign-in by code (its phone as it was typed);
    /// returns its id. Found through ``M0030UnverifiedPhones``'s index: before it, every first sign-in read `users`
    /// whole.
    static func adoption(phone: String, role: UserRole) -> PostgresQuery {
        """
        UPDATE users SET phone = \(phone), phone_verified_at = now()
        WHERE id = (
            SELECT id FROM users
            WHERE role = \(role.rawValue) AND phone_verified_at IS NULL
              AND \(unescaped: M0030UnverifiedPhones.normalizedPhone) = \(phone)
            ORDER BY created_at, id LIMIT 1 FOR UPDATE
        )
        RETURNING id
        """
    }

    /// The verified account of `phone` and `role`, adopting or creating one.
    private static func verifiedUser(
        phone: String,
        role: UserRole,
        connection: PostgresConnection,
        logger: Logger
    ) async throws -> UUID {
        if let id = try await connection.row(
            "SELECT id FROM users WHERE role = \(role.rawValue) AND phone = \(phone) AND phone_verified_at IS NOT NULL",
            logger: logger,
            { try $0.decode(UUID.self) }
        ) {
            return id
        }
        let adopted = try await connection.row(Self.adoption(phone: phone, role: role), logger: logger) {
            try $0.decode(UUID.self)
        }
        if let adopted { return adopted }
        let created = try await connection.row(
            """
            INSERT INTO users (role, phone, phone_verified_at) VALUES (\(role.rawValue), \(phone), now())
            RETURNING id
            """,
            logger: logger
        ) { try $0.decode(UUID.self) }
        guard let created else { throw APIProblem(.internalServerError, detail: "the account was not created") }
        return created
    }
}
