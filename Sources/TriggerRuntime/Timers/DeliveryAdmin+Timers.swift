import Foundation
import PostgresNIO

/// A pending timer as `events timers` shows it.
public struct TimerRecord: Sendable, Hashable {
    /// The timer function.
    public var function: FunctionName
    /// The document.
    public var documentKey: String
    /// The key.
    public var key: String
    /// When it is due.
    public var dueAt: Date
    /// When it was (last) scheduled.
    public var createdAt: Date
    /// Its payload as JSON text.
    public var payload: String?
}

/// A schedule as `events schedules` shows it.
public struct ScheduleRecord: Sendable, Hashable {
    /// The scheduled function.
    public var function: FunctionName
    /// `every 60s` or `cron …`.
    public var schedule: String
    /// When it ticks next.
    public var nextRunAt: Date
    /// When it last ticked (`nil`: never since installed).
    public var lastRunAt: Date?
}

/// How many timers and schedules there are (the `events` summary).
public struct TimerSummary: Sendable, Hashable {
    /// Timers waiting for their due time.
    public var pendingTimers: Int
    /// Of those, timers already due (a worker promotes them at its next claim).
    public var dueTimers: Int
    /// Installed schedules.
    public var schedules: Int

    /// Creates a summary.
    /// - Parameters:
    ///   - pendingTimers: Timers waiting for their due time.
    ///   - dueTimers: Of those, timers already due.
    ///   - schedules: Installed schedules.
    public init(pendingTimers: Int, dueTimers: Int, schedules: Int) {
        self.pendingTimers = pendingTimers
        self.dueTimers = dueTimers
        self.schedules = schedules
    }
}

extension DeliveryAdmin {
    /// Pending timers, earliest due first.
    /// - Parameters:
    ///   - function: Only this function's.
    ///   - limit: At most this many (1...10 000).
    public func timers(function: FunctionName? = nil, limit: Int = 50) async throws -> [TimerRecord] {
        guard (1...10_000).contains(limit) else {
            throw TriggerRuntimeError(.invalidConfiguration, "limit must be 1...10000, got \(limit)")
        }
        let name = function?.rawValue
        let rows = try await self.client.query(
            """
            SELECT function_name, document_key, timer_key, due_at, created_at, payload::text
            FROM trigger_runtime.timers WHERE (\(name)::text IS NULL OR function_name = \(name))
            ORDER BY due_at LIMIT \(limit)
            """,
            logger: self.logger
        )
        var records: [TimerRecord] = []
        for try await (function, document, key, due, created, payload) in rows.decode(
            (String, String, String, Date, Date, String?).self)
        {
            records.append(
                TimerRecord(
                    function: FunctionName(function), documentKey: document, key: key, dueAt: due, createdAt: created,
                    payload: payload))
        }
        return records
    }

    /// The installed schedules, by function name.
    public func schedules() async throws -> [ScheduleRecord] {
        let rows = try await self.client.query(
            """
            SELECT function_name, schedule, next_run_at, last_run_at FROM trigger_runtime.schedules
            ORDER BY function_name
            """,
            logger: self.logger
        )
        var records: [ScheduleRecord] = []
        for try await (function, schedule, next, last) in rows.decode((String, String, Date, Date?).self) {
            records.append(
                ScheduleRecord(function: FunctionName(function), schedule: schedule, nextRunAt: next, lastRunAt: last))
        }
        return records
    }

    /// How many timers are pending (and due) and how many schedules are installed.
    public func timerSummary() async throws -> TimerSummary {
        let rows = try await self.client.query(
            """
            SELECT (SELECT count(*) FROM trigger_runtime.timers)::int8,
                   (SELECT count(*) FROM trigger_runtime.timers WHERE due_at <= now())::int8,
                   (SELECT count(*) FROM trigger_runtime.schedules)::int8
            """,
            logger: self.logger
        )
        for try await (pending, due, schedules) in rows.decode((Int64, Int64, Int64).self) {
            return TimerSummary(pendingTimers: Int(pending), dueTimers: Int(due), schedules: Int(schedules))
        }
        return TimerSummary(pendingTimers: 0, dueTimers: 0, schedules: 0)
    }
}
