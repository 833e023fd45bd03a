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
        let (dueAt, delay): (Date?, Double?) =
            switch due {
            case .at(let date): (date, nil)
            case .after(let duration): (nil, duration.secondsValue)
            }
        var wrote = false
        do {
            let rows = try await connection.execute(
                TimerStatements.Schedule(
                    function: function.rawValue,
                    document: document,
                    key: key,
                    replace: ifExists == .replace,
                    dueAt: dueAt,
                    delay: delay,
                    payload: payload.map { String(decoding: $0, as: UTF8.self) } ?? "null",
                    channel: self.channel
                ),
                logger: self.logger
            )
            for try await written in rows { wrote = written }
        } catch {
            throw Self.runtimeError(error)
        }
        if wrote { RuntimeMetrics.timerScheduled(function) }
        return wrote
    }

    @discardableResult
    public func cancel(_ function: FunctionName, document: String, key: String, on transaction: PostgresConnection?)
        async throws -> Bool
    {
        guard let connection = transaction else {
            throw TriggerRuntimeError(.noTransaction, "cancelling a timer of \(function) needs the caller's transaction")
        }
        let rows = try await connection.execute(
            TimerStatements.Cancel(function: function.rawValue, document: document, key: key),
            logger: self.logger
        )
        for try await removed in rows { return removed > 0 }
        return false
    }
}

extension PostgresTimers {
    /// The SQL function that schedules a timer inside an application's own statement, so the statement sets its
    /// timers with the rows they belong to, in one round trip and without a transaction of its own:
    /// `trigger_runtime.schedule_timer(function text, document text, key text, replace boolean, due_at timestamptz,
    /// payload jsonb, channel text)`, answering whether it wrote (`replace` false keeps an existing timer, as
    /// ``TimerConflict/keep`` does). It is what ``schedule(_:document:key:due:payload:ifExists:on:)`` runs; a function
    /// not installed as a timer function makes the statement fail (map its error with ``runtimeError(_:)``). Count
    /// what it wrote with ``recordScheduled(_:count:)``.
    public static let scheduleFunction = "trigger_runtime.schedule_timer"

    /// `error`, or ``TriggerRuntimeError/Code/functionNotRegistered`` when it is `schedule_timer()`'s refusal of a
    /// function not installed as a timer function.
    public static func runtimeError(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError, error.serverInfo?[.sqlState] == RuntimeSchema.unregisteredTimerState
        else { return error }
        return TriggerRuntimeError(
            .functionNotRegistered,
            "\(error.serverInfo?[.message] ?? "a function is not installed as a timer function") (register it and run migrate)"
        )
    }

    /// Counts `count` timers of `function` that an application's statement wrote through ``scheduleFunction``
    /// (`trigger.timers.scheduled`, as ``schedule(_:document:key:due:payload:ifExists:on:)`` counts its own).
    public static func recordScheduled(_ function: FunctionName, count: Int = 1) {
        guard count > 0 else { return }
        RuntimeMetrics.timerScheduled(function, count: count)
    }
}
