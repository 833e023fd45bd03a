import Foundation
import Logging
import PostgresNIO

/// Lists, shows and replays deliveries (what `ridesharing events` calls).
public struct DeliveryAdmin: Sendable {
    let client: PostgresClient
    private let channel: String
    package let logger: Logger

    /// Creates the admin API.
    /// - Parameters:
    ///   - client: A running client.
    ///   - channel: The workers' NOTIFY channel, woken after a replay.
    ///   - logger: The queries' logger.
    public init(client: PostgresClient, channel: String = TriggerRuntime.Configuration.defaultChannel, logger: Logger) {
        self.client = client
        self.channel = channel
        self.logger = logger
    }

    private static let pendingColumns = """
        id, function_name, table_name, operation, document_key,
        CASE WHEN status = 'dead' THEN 'dead' WHEN lease_token IS NOT NULL THEN 'running'
             WHEN attempt > 0 AND run_after > now() THEN 'retrying' ELSE 'ready' END,
        attempt, committed_at, run_after, lease_owner, last_error
        """

    /// Pending and dead deliveries (newest first), or with `dead` only the dead ones; with `includeDone` the done
    /// log as well.
    /// - Parameters:
    ///   - dead: Only dead-lettered deliveries.
    ///   - function: Only this function's.
    ///   - includeDone: Add done deliveries still in the retention window.
    ///   - limit: At most this many (1...10 000).
    public func list(dead: Bool = false, function: FunctionName? = nil, includeDone: Bool = false, limit: Int = 50)
        async throws -> [DeliveryRecord]
    {
        guard (1...10_000).contains(limit) else {
            throw TriggerRuntimeError(.invalidConfiguration, "limit must be 1...10000, got \(limit)")
        }
        let name = function?.rawValue
        let statuses = dead ? ["dead"] : ["ready", "dead"]
        var records = try await self.fetch(
            """
            SELECT \(unescaped: Self.pendingColumns), NULL::text, NULL::text FROM trigger_runtime.deliveries
            WHERE status = ANY(\(statuses)) AND (\(name)::text IS NULL OR function_name = \(name))
            ORDER BY id DESC LIMIT \(limit)
            """
        )
        if includeDone && !dead {
            records += try await self.fetch(
                """
                SELECT id, function_name, table_name, operation, document_key, 'done', attempt, committed_at, done_at,
                       lease_owner, NULL::text, NULL::text, NULL::text FROM trigger_runtime.done
                WHERE (\(name)::text IS NULL OR function_name = \(name)) ORDER BY id DESC LIMIT \(limit)
                """
            )
            records.sort { $0.id > $1.id }
            records = Array(records.prefix(limit))
        }
        return records
    }

    /// One delivery, pending, dead or done, with its rows when still pending or dead.
    /// - Parameter id: The delivery's id.
    public func show(_ id: Int64) async throws -> DeliveryRecord {
        let pending = try await self.fetch(
            """
            SELECT \(unescaped: Self.pendingColumns), old_row::text, new_row::text
            FROM trigger_runtime.deliveries WHERE id = \(id)
            """
        )
        if let record = pending.first { return record }
        let done = try await self.fetch(
            """
            SELECT id, function_name, table_name, operation, document_key, 'done', attempt, committed_at, done_at,
                   lease_owner, NULL::text, NULL::text, NULL::text FROM trigger_runtime.done WHERE id = \(id)
            """
        )
        guard let record = done.first else {
            throw TriggerRuntimeError(.notFound, "no delivery \(id) (pending, dead, or done within the retention period)")
        }
        return record
    }

    /// Replays a dead delivery: it becomes ready with a fresh attempt count, and workers are woken.
    /// - Parameter id: The dead delivery's id. Anything else is refused and nothing changes.
    public func retry(_ id: Int64) async throws {
        let rows = try await self.client.query(
            """
            WITH r AS (
                UPDATE trigger_runtime.deliveries SET status = 'ready', attempt = 0, run_after = now()
                WHERE id = \(id) AND status = 'dead' RETURNING id
            )
            SELECT r.id FROM r, pg_notify(\(self.channel), '')
            """,
            logger: self.logger
        )
        for try await _ in rows.decode(Int64.self) { return }
        _ = try await self.show(id)
        throw TriggerRuntimeError(.notDead, "delivery \(id) is not dead-lettered; only dead deliveries can be retried")
    }

    /// Replays every dead delivery (of `function`, if given); returns how many.
    /// - Parameter function: Only this function's dead deliveries.
    @discardableResult
    public func retryAllDead(function: FunctionName? = nil) async throws -> Int {
        let name = function?.rawValue
        let rows = try await self.client.query(
            """
            WITH r AS (
                UPDATE trigger_runtime.deliveries SET status = 'ready', attempt = 0, run_after = now()
                WHERE status = 'dead' AND (\(name)::text IS NULL OR function_name = \(name)) RETURNING id
            )
            SELECT count(*)::int8 FROM r, pg_notify(\(self.channel), '')
            """,
            logger: self.logger
        )
        var count: Int64 = 0
        for try await value in rows.decode(Int64.self) { count = value }
        return Int(count)
    }

    private func fetch(_ query: PostgresQuery) async throws -> [DeliveryRecord] {
        let rows = try await self.client.query(query, logger: self.logger)
        var records: [DeliveryRecord] = []
        for try await row in rows {
            let (id, function, table, operation, key, status, attempt, committedAt, timestamp, worker, lastError, before, after) =
                try row.decode(
                    (Int64, String, String, String, String, String, Int, Date, Date, String?, String?, String?, String?).self
                )
            records.append(
                DeliveryRecord(
                    id: id, function: FunctionName(function), table: table,
                    operation: ChangeOperation(rawValue: operation) ?? .update, documentKey: key,
                    status: DeliveryRecord.Status(rawValue: status) ?? .ready, attempt: attempt,
                    committedAt: committedAt, timestamp: timestamp, worker: worker, lastError: lastError,
                    before: before, after: after
                )
            )
        }
        return records
    }
}
