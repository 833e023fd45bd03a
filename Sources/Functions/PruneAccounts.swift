import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// `pruneAccounts`: keeps the accounts' tables bounded. Every hour it deletes sign-in codes older than a day (the
/// hourly rate limit only counts the last hour), tokens that expired more than a day ago, sessions that ended
/// (revoked or expired) more than 30 days ago (``sessionRetention``: `GET /v1/me/sessions` shows only live ones, the
/// rest is kept for investigations), with their tokens, and pre-session tokens past their expiry.
///
/// A rotated refresh token is never deleted while its session lives (it expires with the session), so presenting
/// it again is still recognised as reuse and revokes the session.
public struct PruneAccounts: ScheduledFunction {
    /// The persisted name.
    public static let name: FunctionName = "pruneAccounts"
    /// Every hour.
    public static var schedule: Schedule { .every(.seconds(3600)) }
    /// How long ended sessions are kept.
    public static let sessionRetention: Duration = .seconds(30 * 86_400)

    /// Creates the function.
    public init() {}

    public func run(_ tick: ScheduleTick, context: FunctionContext) async throws {
        guard let connection = context.transaction else { throw FunctionsError.noTransaction(Self.name) }
        let retention = Self.sessionRetention.seconds
        var deleted: [String: Int] = [:]
        for (table, statement) in [
            ("auth_codes", "DELETE FROM auth_codes WHERE created_at < now() - interval '1 day' RETURNING id"),
            (
                "auth_sessions",
                """
                DELETE FROM auth_sessions
                WHERE coalesce(least(revoked_at, expires_at), expires_at) < now() - make_interval(secs => \(retention))
                RETURNING id
                """
            ),
            ("auth_tokens", "DELETE FROM auth_tokens WHERE expires_at < now() - interval '1 day' RETURNING token_hash"),
            ("api_tokens", "DELETE FROM api_tokens WHERE expires_at < now() RETURNING token_hash"),
        ] as [(String, PostgresQuery)] {
            deleted[table] = try await connection.count(statement, logger: context.logger)
        }
        if deleted.values.contains(where: { $0 > 0 }) {
            context.logger.info(
                "accounts pruned",
                metadata: deleted.reduce(into: [:]) { $0["auth.pruned.\($1.key)"] = "\($1.value)" }
            )
        }
    }
}
