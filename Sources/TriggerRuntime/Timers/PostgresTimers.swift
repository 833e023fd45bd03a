import Foundation
import Logging
import PostgresNIO

/// Timers in `trigger_runtime.timers`, written in the caller's transaction.
///
/// Scheduling notifies the workers' channel in that transaction (PostgreSQL sends it at commit, folded with the
/// transaction's other notifications), so a sleeping worker recomputes its next wake-up, which includes the
/// earliest timer: a timer due sooner than the worker's next poll is not left waiting for it. A timer can only be
/// scheduled for a function installed as a timer function (`TriggerInstaller`); anything else would never run.
public struct PostgresTimers: TimerScheduling {
    private let channel: String
    private let logger: Logger

    /// Creates the scheduler.
    /// - Parameters:
    ///   - channel: The workers' NOTIFY channel.
    ///   - logger: The statements' logger.
    public init(channel: String = TriggerRuntime.Configuration.defaultChannel, logger: Logger) {
        self.channel = channel
        self.logger = logger
    }

    @discardableResult
    public func schedule(
        _ function: FunctionName,
        document: String,
        key: String,
        due: TimerDue,
        payload: Data?,
        ifExists: TimerConflict,
        on transaction: PostgresConnection?
    ) async throws -> Bool {
        guard let connection = transaction else {
            throw TriggerRuntimeError(.noTransaction, "scheduling a timer of \(function) needs the caller's transaction")
        }
        let name = function.rawValue
        let json = payload.map { String(decoding: $0, as: UTF8.self) } ?? "null"
        let (dueAt, delay): (Date?, Double?) =
            switch due {
            case .at(let date): (date, nil)
            case .after(let duration): (nil, duration.secondsValue)
            }
        // A due timer not yet claimed is a delivery with attempt 0 and no lease: `replace` removes it with the
        // pending one (at most one of the two exists), `keep` keeps it.
        let rows = try await connection.query(
            """
            WITH f AS (SELECT FROM trigger_runtime.functions WHERE name = \(name) AND kind = 'timer'),
            promoted AS (
                SELECT id FROM trigger_runtime.deliveries
                WHERE function_name = \(name) AND document_key = \(document) AND timer_key = \(key)
                  AND status = 'ready' AND attempt = 0 AND lease_token IS NULL
                FOR UPDATE
            ),
            unpromoted AS (
                DELETE FROM trigger_runtime.deliveries
                WHERE id IN (SELECT id FROM promoted) AND \(ifExists == .replace)
                RETURNING id
            ),
            written AS (
                INSERT INTO trigger_runtime.timers (function_name, document_key, timer_key, due_at, payload)
                SELECT \(name), \(document), \(key),
                       coalesce(\(dueAt)::timestamptz, now() + make_interval(secs => \(delay)::float8)),
                       \(json)::jsonb
                FROM f WHERE \(ifExists == .replace) OR NOT EXISTS (SELECT FROM promoted)
                ON CONFLICT (function_name, document_key, timer_key) DO UPDATE
                SET due_at = excluded.due_at, payload = excluded.payload, created_at = now()
                WHERE \(ifExists == .replace)
                RETURNING 1
            ),
            notified AS (SELECT pg_notify(\(self.channel), '') FROM written LIMIT 1)
            SELECT (SELECT count(*) FROM f)::int8, (SELECT count(*) FROM written)::int8,
                   (SELECT count(*) FROM notified)::int8, (SELECT count(*) FROM unpromoted)::int8
            """,
            logger: self.logger
        )
        for try await (registered, written, _, _) in rows.decode((Int64, Int64, Int64, Int64).self) {
            guard registered > 0 else {
                throw TriggerRuntimeError(
                    .functionNotRegistered,
                    "\(function) is not installed as a timer function (register it and run migrate)")
            }
            if written > 0 { RuntimeMetrics.timerScheduled(function) }
            return written > 0
        }
        return false
    }

    @discardableResult
    public func cancel(_ function: FunctionName, document: String, key: String, on transaction: PostgresConnection?)
        async throws -> Bool
    {
        guard let connection = transaction else {
            throw TriggerRuntimeError(.noTransaction, "cancelling a timer of \(function) needs the caller's transaction")
        }
        let name = function.rawValue
        let rows = try await connection.query(
            """
            WITH pending AS (
                DELETE FROM trigger_runtime.timers
                WHERE function_name = \(name) AND document_key = \(document) AND timer_key = \(key)
                RETURNING 1
            ),
            promoted AS (
                DELETE FROM trigger_runtime.deliveries
                WHERE function_name = \(name) AND document_key = \(document) AND timer_key = \(key)
                  AND status = 'ready' AND attempt = 0 AND lease_token IS NULL
                RETURNING id, function_name, document_key
            ),
            woken AS (\(unescaped: RuntimeSchema.waking("promoted")))  -- its chain's next delivery (migration 0007)
            SELECT ((SELECT count(*) FROM pending) + (SELECT count(*) FROM promoted))::int8 FROM woken
            """,
            logger: self.logger
        )
        for try await removed in rows.decode(Int64.self) { return removed > 0 }
        return false
    }
}
