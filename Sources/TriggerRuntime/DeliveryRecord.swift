import Foundation

/// A delivery as the admin API shows it: pending, running, dead, or done (kept for the retention period).
public struct DeliveryRecord: Sendable, Hashable {
    /// Where a delivery stands.
    public enum Status: String, Sendable, Hashable {
        /// Waiting to run (a first attempt, or a retry whose time has come).
        case ready
        /// Waiting for its retry time after a failed attempt.
        case retrying
        /// Leased to a worker that is running it.
        case running
        /// Dead-lettered after its last attempt failed; `events retry` replays it.
        case dead
        /// Handled; kept in the done log until pruned.
        case done
    }

    /// The delivery's id (the event id).
    public var id: Int64
    /// The function.
    public var function: FunctionName
    /// The table of the change, `schema.table`.
    public var table: String
    /// The operation of the change.
    public var operation: ChangeOperation
    /// The document key.
    public var documentKey: String
    /// Where it stands.
    public var status: Status
    /// Attempts made so far.
    public var attempt: Int
    /// When the change committed (the writer's `now()`).
    public var committedAt: Date
    /// When it may run next (pending) or when it was handled (done).
    public var timestamp: Date
    /// The worker holding or last holding its lease.
    public var worker: String?
    /// The last attempt's error.
    public var lastError: String?
    /// The row before the change as JSON text (`show` only; `nil` for done deliveries, which keep no rows).
    public var before: String?
    /// The row after the change as JSON text (`show` only).
    public var after: String?
}
