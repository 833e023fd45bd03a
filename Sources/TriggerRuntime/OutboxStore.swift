import PostgresNIO

/// Where the worker's run loop claims and settles deliveries: PostgreSQL in production, memory in unit tests.
package protocol OutboxStore: Sendable {
    /// Claims up to `limit` due deliveries of `functions` (at most one per function and document: the earliest),
    /// leasing them to `owner` for `lease`.
    func claim(limit: Int, functions: [FunctionName], owner: String, lease: Duration) async throws -> [Delivery]

    /// Runs `body` in a transaction and, if it returns, marks the delivery done in the same transaction, fenced by
    /// its lease token. Throws `leaseLost` (rolling back) if the lease was taken over; rethrows `body`'s error
    /// after rolling back, then runs `onFailure` outside that transaction to settle the delivery.
    func complete(
        _ delivery: Delivery,
        body: @Sendable (PostgresConnection?) async throws -> Void,
        onFailure: @Sendable (any Error) -> Settlement
    ) async throws -> Settlement

    /// Extends the leases of `deliveries`; returns the ids whose lease is still held.
    func renew(_ deliveries: [Delivery], lease: Duration) async throws -> Set<Int64>

    /// Hands `deliveries` back at once (graceful shutdown): the attempt is not counted.
    func release(_ deliveries: [Delivery]) async throws

    /// Seconds until the earliest ready delivery of `functions` is due (≤ 0 if due now), or `nil` if none.
    func secondsUntilNextDue(functions: [FunctionName]) async throws -> Double?

    /// Deletes done-log entries older than `age`; returns how many.
    func prune(olderThan age: Duration) async throws -> Int
}

/// What happened to a delivery once its handler ran.
package enum Settlement: Sendable, Hashable {
    /// Done: the handler returned and the completion committed.
    case done
    /// Scheduled again after `delay`, with the error text.
    case retry(delay: Duration, error: String)
    /// Dead-lettered with the error text.
    case dead(error: String)
    /// Handed back without counting the attempt (shutdown).
    case release
    /// The lease had been taken over; nothing was written.
    case leaseLost
}
