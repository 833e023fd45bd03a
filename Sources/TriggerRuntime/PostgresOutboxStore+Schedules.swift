import Foundation
import PostgresNIO

extension PostgresOutboxStore {
    /// Inserts the tick of every schedule of `schedules` that is due, advancing each schedule's `next_run_at` in the
    /// same transaction; returns how many ticked, the seconds until the earliest schedule is due next, and the
    /// timers pending for `timerFunctions`.
    ///
    /// Exactly one tick per due instant however many workers call this: the rows are picked `FOR UPDATE SKIP
    /// LOCKED`, and a worker whose snapshot predates another's advance finds the row no longer due when it locks
    /// it (PostgreSQL re-checks the condition on the newest version). Catch-up: a schedule whose `next_run_at` lies
    /// several ticks back gets one tick standing for all of them (`coalesced`), and its next run is the first
    /// tick after the database's `now()`.
    package func tickSchedules(_ schedules: [FunctionName: Schedule], timerFunctions: [FunctionName]) async throws
        -> ScheduleCheck
    {
        try await self.client.withConnectionClosedOnFailure { connection in
            try await connection.query("BEGIN", logger: self.logger)
            do {
                let rows = try await connection.query(
                    """
                    SELECT function_name, next_run_at, now() FROM trigger_runtime.schedules
                    WHERE function_name = ANY(\(schedules.keys.map(\.rawValue))) AND next_run_at <= now()
                    ORDER BY function_name
                    FOR UPDATE SKIP LOCKED
                    """,
                    logger: self.logger
                )
                var due: [(FunctionName, Date, Date)] = []
                for try await (name, nextRun, now) in rows.decode((String, Date, Date).self) {
                    due.append((FunctionName(name), nextRun, now))
                }
                for (function, scheduledAt, now) in due {
                    guard let schedule = schedules[function] else { continue }
                    let coalesced = try schedule.ticks(from: scheduledAt, through: now)
                    let next = try schedule.next(after: now)
                    try await connection.query(
                        """
                        WITH tick AS (
                            INSERT INTO trigger_runtime.deliveries
                                (function_name, table_name, operation, document_key, new_row, committed_at)
                            VALUES (\(function.rawValue), '', 'tick', \(function.rawValue),
                                    jsonb_build_object('scheduled_at', \(scheduledAt)::timestamptz,
                                                       'coalesced', \(coalesced)::int8),
                                    \(scheduledAt))
                        )
                        UPDATE trigger_runtime.schedules SET next_run_at = \(next), last_run_at = now()
                        WHERE function_name = \(function.rawValue)
                        """,
                        logger: self.logger
                    )
                }
                let next = try await connection.query(
                    """
                    SELECT (SELECT extract(epoch FROM min(next_run_at) - clock_timestamp())::float8
                            FROM trigger_runtime.schedules WHERE function_name = ANY(\(schedules.keys.map(\.rawValue)))),
                           (SELECT count(*) FROM trigger_runtime.timers
                            WHERE function_name = ANY(\(timerFunctions.map(\.rawValue))))::int8
                    """,
                    logger: self.logger
                )
                var check = ScheduleCheck(ticked: due.map(\.0), secondsUntilNext: nil, pendingTimers: 0)
                for try await (seconds, pending) in next.decode((Double?, Int64).self) {
                    check.secondsUntilNext = seconds
                    check.pendingTimers = Int(pending)
                }
                try await connection.query("COMMIT", logger: self.logger)
                return check
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: self.logger)
                throw error
            }
        }
    }
}

/// What a schedule check did and found.
package struct ScheduleCheck: Sendable, Hashable {
    /// The schedules that ticked.
    package var ticked: [FunctionName]
    /// Seconds until the earliest schedule is due (≤ 0: due now, skipped because another worker holds it).
    package var secondsUntilNext: Double?
    /// Timers waiting for their due time.
    package var pendingTimers: Int

    package init(ticked: [FunctionName], secondsUntilNext: Double?, pendingTimers: Int) {
        self.ticked = ticked
        self.secondsUntilNext = secondsUntilNext
        self.pendingTimers = pendingTimers
    }
}
