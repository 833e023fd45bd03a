import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// `pruneWebhookEvents`: keeps the webhook inbox bounded. Every minute it deletes processed `location` events and
/// rejected events older than the retention (default 7 days), and other processed events older than
/// ``longRetention`` (trip and device events are few, and worth keeping longer for investigations).
///
/// At most ``maximumRows`` per table and tick, in chunks of ``chunk``: a city's phones report about 200 locations
/// a second (1,000 drivers every 5 s), 12,000 a minute, so a minute's tick keeps up with eight times that while no
/// tick holds its transaction long. Unprocessed events are never deleted.
public struct PruneWebhookEvents: ScheduledFunction {
    /// The persisted name.
    public static let name: FunctionName = "pruneWebhookEvents"
    /// Every minute.
    public static var schedule: Schedule { .every(.seconds(60)) }
    /// The retention of processed events other than locations: 30 days, or the configured retention if longer.
    public static let longRetention: Duration = .seconds(30 * 86_400)
    /// The most rows deleted from one table in one tick.
    public static let maximumRows = 100_000
    /// Rows per DELETE statement.
    static let chunk = 20_000

    private let retention: Duration

    /// Creates the function.
    /// - Parameter retention: How long processed location events and rejections are kept.
    public init(retention: Duration) {
        self.retention = retention
    }

    public func run(_ tick: ScheduleTick, context: FunctionContext) async throws {
        guard let connection = context.transaction else { throw FunctionsError.noTransaction(Self.name) }
        let short = self.retention.seconds
        let long = max(Self.longRetention, self.retention).seconds
        let locations = try await Self.deleteInChunks(
            """
            DELETE FROM webhook_events WHERE id IN (
                SELECT id FROM webhook_events
                WHERE processed_at IS NOT NULL AND received_at < now() - make_interval(secs => \(short))
                  AND (type = 'location' OR received_at < now() - make_interval(secs => \(long)))
                LIMIT \(Self.chunk))
            RETURNING id
            """,
            connection: connection,
            logger: context.logger
        )
        let rejections = try await Self.deleteInChunks(
            """
            DELETE FROM webhook_rejections WHERE id IN (
                SELECT id FROM webhook_rejections WHERE received_at < now() - make_interval(secs => \(short))
                LIMIT \(Self.chunk))
            RETURNING id
            """,
            connection: connection,
            logger: context.logger
        )
        if locations + rejections > 0 {
            context.logger.info(
                "webhook inbox pruned", metadata: ["events": "\(locations)", "rejections": "\(rejections)"]
            )
        }
    }

    /// Runs `delete` (at most ``chunk`` rows) until it deletes fewer or ``maximumRows`` were deleted.
    private static func deleteInChunks(_ delete: PostgresQuery, connection: PostgresConnection, logger: Logger)
        async throws -> Int
    {
        var total = 0
        while total < Self.maximumRows {
            let deleted = try await connection.count(delete, logger: logger)
            total += deleted
            if deleted < Self.chunk { break }
        }
        return total
    }
}
