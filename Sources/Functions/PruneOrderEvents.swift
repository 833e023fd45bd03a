import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// `pruneOrderEvents`: keeps the order event log bounded. Every minute it deletes events older than the retention
/// (default 24 h; `EVENTS_RETENTION_HOURS`), at most ``maximumRows`` a tick in chunks of ``chunk``, and records the
/// last position it deleted in `order_event_sequencer.pruned_through`: a stream resuming from an older id is told
/// (`stream.reset`) instead of silently missing events. Position throttles of orders idle that long go too.
///
/// It takes the sequencer's row lock first, as the sequencer does, so the two never wait on each other's rows in
/// opposite orders.
public struct PruneOrderEvents: ScheduledFunction {
    /// The persisted name.
    public static let name: FunctionName = "pruneOrderEvents"
    /// Every minute.
    public static var schedule: Schedule { .every(.seconds(60)) }
    /// The most events deleted in one tick.
    public static let maximumRows = 100_000
    /// Events per DELETE statement.
    static let chunk = 10_000

    private let retention: Duration

    /// Creates the function.
    /// - Parameter retention: How long events stay in the log.
    public init(retention: Duration) {
        self.retention = retention
    }

    public func run(_ tick: ScheduleTick, context: FunctionContext) async throws {
        guard let connection = context.transaction else { throw FunctionsError.noTransaction(Self.name) }
        let cutoff = self.retention.seconds
        try await connection.count(
            "SELECT pruned_through FROM order_event_sequencer FOR UPDATE",
            logger: context.logger
        )
        var total = 0
        var prunedThrough: Int64?
        while total < Self.maximumRows {
            // An event's position and (if the sequencer has not run since) its place in the queue go with it.
            let (deleted, highest) =
                try await connection.row(
                    """
                    WITH gone AS (
                        DELETE FROM order_events WHERE id IN (
                            SELECT id FROM order_events WHERE created_at < now() - make_interval(secs => \(cutoff))
                            LIMIT \(Self.chunk))
                        RETURNING id
                    ),
                    unqueued AS (DELETE FROM order_event_queue q USING gone WHERE q.id = gone.id),
                    unplaced AS (
                        DELETE FROM order_event_positions p USING gone WHERE p.event_id = gone.id
                        RETURNING p.position
                    )
                    SELECT (SELECT count(*) FROM gone)::int8, (SELECT max(position) FROM unplaced)
                    """,
                    logger: context.logger
                ) { try $0.decode((Int64, Int64?).self) } ?? (Int64(0), nil)
            total += Int(deleted)
            if let highest { prunedThrough = max(prunedThrough ?? 0, highest) }
            if deleted < Self.chunk { break }
        }
        if let prunedThrough {
            try await connection.count(
                """
                UPDATE order_event_sequencer SET pruned_through = greatest(pruned_through, \(prunedThrough))
                RETURNING pruned_through
                """,
                logger: context.logger
            )
        }
        try await connection.count(
            """
            DELETE FROM order_position_throttle WHERE emitted_at < now() - make_interval(secs => \(cutoff))
            RETURNING order_id
            """,
            logger: context.logger
        )
        if total > 0 {
            context.logger.info("order events pruned", metadata: ["events": "\(total)"])
        }
    }
}
