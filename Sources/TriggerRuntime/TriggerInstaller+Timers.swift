import Foundation
import Logging
import PostgresNIO

extension TriggerInstaller {
    /// Records a timer or scheduled function, and upserts a schedule's row: an unchanged schedule keeps its next
    /// run (a re-install must not skip or repeat a tick), a changed one runs next at its first tick after now.
    static func installTimeFunction(_ function: FunctionBinding, connection: PostgresConnection, logger: Logger)
        async throws
    {
        let name = function.name.rawValue
        switch function.kind {
        case .rows:
            return
        case .timer:
            try await connection.query(
                "INSERT INTO trigger_runtime.functions (name, kind) VALUES (\(name), 'timer')", logger: logger)
        case .schedule(let schedule):
            do {
                try schedule.validate()
            } catch let error as TriggerRuntimeError {
                throw TriggerRuntimeError(.invalidRegistration, "function \(function.name): \(error.message)")
            }
            try await connection.query(
                "INSERT INTO trigger_runtime.functions (name, kind) VALUES (\(name), 'schedule')", logger: logger)
            var now = Date()
            for try await value in try await connection.query("SELECT now()", logger: logger).decode(Date.self) {
                now = value
            }
            let next = try schedule.next(after: now)
            try await connection.query(
                """
                INSERT INTO trigger_runtime.schedules (function_name, schedule, next_run_at)
                VALUES (\(name), \(schedule.description), \(next))
                ON CONFLICT (function_name) DO UPDATE
                SET schedule = excluded.schedule, next_run_at = excluded.next_run_at, installed_at = now()
                WHERE trigger_runtime.schedules.schedule <> excluded.schedule
                """,
                logger: logger
            )
        }
    }

    /// Removes the schedules of functions that are no longer registered as scheduled functions.
    static func removeUnscheduled(_ bindings: [FunctionBinding], connection: PostgresConnection, logger: Logger)
        async throws
    {
        let scheduled = bindings.filter { $0.schedule != nil }.map(\.name.rawValue)
        let rows = try await connection.query(
            """
            DELETE FROM trigger_runtime.schedules WHERE function_name <> ALL(\(scheduled)) RETURNING function_name
            """,
            logger: logger
        )
        for try await function in rows.decode(String.self) {
            logger.info("removed the schedule of a function no longer registered", metadata: ["trigger.function": "\(function)"])
        }
    }

    /// Moves the pending timers of functions no longer registered as timer functions into dead deliveries: no
    /// worker would ever run them, and `events retry` replays them once the function is registered again.
    static func deadLetterOrphanTimers(connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            WITH gone AS (
                DELETE FROM trigger_runtime.timers t
                WHERE NOT EXISTS (
                    SELECT FROM trigger_runtime.functions f WHERE f.name = t.function_name AND f.kind = 'timer')
                RETURNING t.*
            ),
            dead AS (
                INSERT INTO trigger_runtime.deliveries
                    (function_name, table_name, operation, document_key, new_row, committed_at, timer_key, status,
                     last_error)
                SELECT function_name, '', 'timer', document_key, payload, due_at, timer_key, 'dead',
                       'function ' || function_name || ' is no longer registered as a timer function: its pending '
                       || 'timer was dead-lettered when the registry was installed; register it again and run '
                       || '`events retry` to replay'
                FROM gone ORDER BY due_at
                RETURNING function_name
            )
            SELECT function_name, count(*)::int8 FROM dead GROUP BY function_name ORDER BY function_name
            """,
            logger: logger
        )
        for try await (function, count) in rows.decode((String, Int64).self) {
            logger.warning(
                "dead-lettered the pending timers of a function that is no longer registered",
                metadata: ["trigger.function": "\(function)", "trigger.timers": "\(count)"]
            )
        }
    }
}
