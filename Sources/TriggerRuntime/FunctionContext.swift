import Foundation
import Logging
import PostgresNIO

/// What a function invocation knows about itself besides the change.
///
/// Dependencies (an HTTP client, a store) go into the function's `init`, never here.
public struct FunctionContext: Sendable {
    /// The delivery's id in the outbox; stable across retries of the same delivery.
    public var eventID: Int64
    /// The function being invoked.
    public var functionName: FunctionName
    /// The operation that produced the change: `timer` or `tick` when time, not a row change, fired the function.
    public var operation: ChangeOperation
    /// The table the change happened on.
    public var table: String
    /// The value of the trigger's key column, as text.
    public var documentKey: String
    /// When the writing transaction committed (its `now()`).
    public var commitTime: Date
    /// 1 for the first attempt, 2 for the first retry, and so on.
    public var attempt: Int
    /// A logger stamped with `trigger.function`, `trigger.event_id` and `trigger.attempt`.
    public var logger: Logger
    /// The open transaction in which the delivery will be marked done. Writes made on it commit together with the
    /// completion, or not at all. `nil` when the function runs outside a worker (unit tests).
    public var transaction: PostgresConnection?
    /// The timer being run, for a ``TimerFunction``; `nil` otherwise.
    public var timer: TimerInfo?
    /// The tick being run, for a ``ScheduledFunction``; `nil` otherwise.
    public var tick: ScheduleTick?

    /// Creates a context.
    /// - Parameters:
    ///   - eventID: The delivery's id.
    ///   - functionName: The function being invoked.
    ///   - operation: The operation that produced the change.
    ///   - table: The table of the change.
    ///   - documentKey: The document's key as text.
    ///   - commitTime: When the change committed.
    ///   - attempt: The attempt number, from 1.
    ///   - logger: The invocation's logger.
    ///   - transaction: The delivery's transaction, if any.
    ///   - timer: The timer being run, if a timer fired the function.
    ///   - tick: The tick being run, if a schedule fired the function.
    public init(
        eventID: Int64,
        functionName: FunctionName,
        operation: ChangeOperation,
        table: String,
        documentKey: String,
        commitTime: Date,
        attempt: Int,
        logger: Logger,
        transaction: PostgresConnection? = nil,
        timer: TimerInfo? = nil,
        tick: ScheduleTick? = nil
    ) {
        self.eventID = eventID
        self.functionName = functionName
        self.operation = operation
        self.table = table
        self.documentKey = documentKey
        self.commitTime = commitTime
        self.attempt = attempt
        self.logger = logger
        self.transaction = transaction
        self.timer = timer
        self.tick = tick
    }
}
