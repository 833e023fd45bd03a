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
        for try await (registered, written) in rows {
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
        let rows = try await connection.execute(
            TimerStatements.Cancel(function: function.rawValue, document: document, key: key),
            logger: self.logger
        )
        for try await removed in rows { return removed > 0 }
        return false
    }
}
