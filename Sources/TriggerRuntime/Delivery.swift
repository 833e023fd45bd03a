import Foundation

/// A claimed delivery: one change for one function, leased to this worker under `leaseToken`.
package struct Delivery: Sendable, Hashable {
    /// The delivery's id (the event id).
    package var id: Int64
    /// The function to run.
    package var function: FunctionName
    /// The table of the change, `schema.table`.
    package var table: String
    /// The operation of the change.
    package var operation: ChangeOperation
    /// The document key, as text.
    package var documentKey: String
    /// The row before, as JSON.
    package var before: Data?
    /// The row after, as JSON.
    package var after: Data?
    /// When the writing transaction committed (its `now()`).
    package var committedAt: Date
    /// The attempt this claim is, from 1.
    package var attempt: Int
    /// The claim's fencing token.
    package var leaseToken: UUID
    /// The timer's key, for a delivery promoted from a timer.
    package var timerKey: String?

    package init(
        id: Int64,
        function: FunctionName,
        table: String,
        operation: ChangeOperation,
        documentKey: String,
        before: Data?,
        after: Data?,
        committedAt: Date,
        attempt: Int,
        leaseToken: UUID,
        timerKey: String? = nil
    ) {
        self.id = id
        self.function = function
        self.table = table
        self.operation = operation
        self.documentKey = documentKey
        self.before = before
        self.after = after
        self.committedAt = committedAt
        self.attempt = attempt
        self.leaseToken = leaseToken
        self.timerKey = timerKey
    }
}
