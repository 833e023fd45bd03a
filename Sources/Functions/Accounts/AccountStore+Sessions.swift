import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import TriggerRuntime

/// Sessions: a session is a family of tokens that began with one sign-in. Refreshing rotates the refresh token;
/// presenting a rotated one again means two parties hold the family (a stolen token), so the whole session is
/// revoked and both must sign in again.
extension AccountStore {
    /// Opens a session for `userID` and issues its first tokens.
    func openSession(userID: UUID, role: UserRole, connection: PostgresConnection) async throws -> SessionTokens {
        let refreshTTL = self.settings.refreshTokenTTL.seconds
        let session = try await connection.row(
            """
            INSERT INTO auth_sessions (user_id, expires_at)
            VALUES (\(userID), now() + make_interval(secs => \(refreshTTL)))
            RETURNING id
            """,
            logger: self.logger
        ) { try $0.decode(UUID.self) }
        guard let session else { throw APIProblem(.internalServerError, detail: "the session was not created") }
        return try await self.issue(session: session, userID: userID, role: role, connection: connection)
    }

    /// A new access and refresh token of `session`.
    private func issue(
        session: UUID,
        userID: UUID,
        role: UserRole,
        connection: PostgresConnection
    ) async throws
        -> SessionTokens
    {
        let access = Tokens.make(prefix: "rs_at_")
        let refresh = Tokens.make(prefix: "rs_rt_")
        let accessTTL = self.settings.accessTokenTTL.seconds
        try await connection.count(
            """
            INSERT INTO auth_tokens (token_hash, session_id, kind, expires_at)
            SELECT \(Tokens.hash(access)), \(session), 'access',
                   least(now() + make_interval(secs => \(accessTTL)), s.expires_at)
            FROM auth_sessions s WHERE s.id = \(session)
            UNION ALL
            SELECT \(Tokens.hash(refresh)), \(session), 'refresh', s.expires_at
            FROM auth_sessions s WHERE s.id = \(session)
            RETURNING token_hash
            """,
            logger: self.logger
        )
        return SessionTokens(
            accessToken: access,
            refreshToken: refresh,
            expiresIn: Int(self.settings.accessTokenTTL.seconds),
            sessionID: session,
            userID: userID,
            role: role
        )
    }

    /// The outcome of a refresh.
    enum Refresh: Sendable {
        case refreshed(SessionTokens)
        case invalid
        case reused
    }

    /// Rotates a refresh token: the presented one is spent and a new pair issued. A spent one presented again
    /// revokes its session (committed, then reported as ``Refresh/reused``).
    func refresh(tokenHash: String) async throws -> Refresh {
        let logger = self.logger
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            let found = try await connection.row(
                """
                SELECT s.id, s.user_id, u.role, t.rotated_at IS NOT NULL,
                       s.revoked_at IS NULL AND s.expires_at > now() AND t.expires_at > now()
                FROM auth_tokens t JOIN auth_sessions s ON s.id = t.session_id JOIN users u ON u.id = s.user_id
                WHERE t.token_hash = \(tokenHash) AND t.kind = 'refresh'
                FOR UPDATE OF t, s
                """,
                logger: logger
            ) { try $0.decode((UUID, UUID, String, Bool, Bool).self) }
            guard let (session, userID, roleText, rotated, live) = found, let role = UserRole(rawValue: roleText)
            else { return .invalid }
            guard live else { return .invalid }
            if rotated {
                try await Self.revoke(session: session, reason: "refresh_reuse", connection: connection, logger: logger)
                logger.warning("refresh token reused: session revoked", metadata: ["auth.session": "\(session)"])
                return .reused
            }
            try await connection.count(
                """
                UPDATE auth_tokens SET rotated_at = now() WHERE token_hash = \(tokenHash) RETURNING token_hash
                """,
                logger: logger
            )
            try await connection.count(
                "UPDATE auth_sessions SET refreshed_at = now() WHERE id = \(session) RETURNING id",
                logger: logger
            )
            return .refreshed(
                try await self.issue(session: session, userID: userID, role: role, connection: connection)
            )
        }
    }

    /// Revokes a session (its access tokens stop working at once).
    static func revoke(session: UUID, reason: String, connection: PostgresConnection, logger: Logger) async throws {
        try await connection.count(
            """
            UPDATE auth_sessions SET revoked_at = now(), revoked_reason = \(reason)
            WHERE id = \(session) AND revoked_at IS NULL RETURNING id
            """,
            logger: logger
        )
    }

    /// Signs the caller's session out; a pre-session token is deleted.
    func signOut(_ caller: Caller) async throws {
        let logger = self.logger
        try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            if let session = caller.sessionID {
                try await Self.revoke(session: session, reason: "signout", connection: connection, logger: logger)
            } else if let hash = caller.tokenHash {
                try await connection.count(
                    "DELETE FROM api_tokens WHERE token_hash = \(hash) RETURNING token_hash",
                    logger: logger
                )
            }
        }
    }

    /// Revokes one of the user's live sessions; `false` when they have no such live session.
    func revoke(session: UUID, userID: UUID) async throws -> Bool {
        let logger = self.logger
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            let owned = try await connection.count(
                """
                SELECT id FROM auth_sessions
                WHERE id = \(session) AND user_id = \(userID) AND revoked_at IS NULL AND expires_at > now()
                FOR UPDATE
                """,
                logger: logger
            )
            guard owned == 1 else { return false }
            try await Self.revoke(session: session, reason: "revoked", connection: connection, logger: logger)
            return true
        }
    }

    /// The user's live sessions, newest first.
    func sessions(userID: UUID, current: UUID?) async throws -> [SessionView] {
        try await self.client.rows(
            """
            SELECT id, created_at, refreshed_at, expires_at FROM auth_sessions
            WHERE user_id = \(userID) AND revoked_at IS NULL AND expires_at > now()
            ORDER BY created_at DESC, id
            """,
            logger: self.logger
        ) { row in
            let (id, created, refreshed, expires) = try row.decode((UUID, Date, Date, Date).self)
            return SessionView(
                id: id,
                createdAt: created,
                refreshedAt: refreshed,
                expiresAt: expires,
                current: id == current
            )
        }
    }
}
