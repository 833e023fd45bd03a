import PostgresNIO

/// Where the worker's run loop claims and settles deliveries: PostgreSQL in production, memory in unit tests.
package protocol OutboxStore: Sendable {
    /// Claims up to `limit` due deliveries of `functions` (at most one per function and document: the earliest),
    /// leasing them to `owner` for `lease`.
    func claim(limit: Int, functions: [FunctionName], owner: String, lease: Duration) async throws -> [Delivery]

    /// Opens one transaction, runs `body` with it and commits when `body` returns (rolls back if it throws).
    ///
    /// The settlements that `OutboxTransaction.run` returns take effect with that commit, all or none: if this
    /// throws, none of them happened (the deliveries run again once their leases expire).
    ///
    /// With `batched`, `run` does not mark a delivery done at once: the commit marks every delivery that returned
    /// `done` in one statement, fenced by their lease tokens. If any of those leases was taken over meanwhile, the
    /// whole transaction rolls back and this throws `BatchLeaseLost`: the caller runs the deliveries again one per
    /// transaction (not batched), where each fence is checked on its own.
    func withTransaction<Result: Sendable>(
        batched: Bool,
        _ body: (any OutboxTransaction) async throws -> Result
    ) async throws -> Result

    /// Extends the leases of `deliveries`; returns the ids whose lease is still held.
    func renew(_ deliveries: [Delivery], lease: Duration) async throws -> Set<Int64>

    /// Hands `deliveries` back at once (graceful shutdown): the attempt is not counted.
    func release(_ deliveries: [Delivery]) async throws

    /// Declares that `owner` claims on a schedule for the next `duration`: meanwhile the capture triggers of
    /// `channel` skip their NOTIFY (see migration 0004). Renew it before it expires.
    func declareAwake(owner: String, channel: String, for duration: Duration) async throws

    /// Withdraws `owner`'s declaration and notifies `channel` once (so sleeping workers look now). Returns a
    /// horizon for `horizonPassed`.
    func withdrawAwake(owner: String, channel: String) async throws -> Int64

    /// Whether every transaction that had an id when `horizon` was read has ended: a claim made after this returns
    /// `true` sees everything captured by writers that skipped their NOTIFY because of a withdrawn declaration.
    func horizonPassed(_ horizon: Int64) async throws -> Bool

    /// Seconds until the earliest ready delivery, pending timer or schedule of `functions` is due (≤ 0 if due
    /// now), or `nil` if none.
    func secondsUntilNextDue(functions: [FunctionName]) async throws -> Double?

    /// Ticks the due schedules among `schedules` (one tick per due instant fleet-wide, missed ticks coalesced) and
    /// reports when the next is due and how many timers of `timerFunctions` are pending.
    func tickSchedules(_ schedules: [FunctionName: Schedule], timerFunctions: [FunctionName]) async throws
        -> ScheduleCheck

    /// Deletes done-log entries older than `age` and dead deliveries that died more than `deadAge` ago; returns
    /// how many of each.
    func prune(olderThan age: Duration, deadOlderThan deadAge: Duration) async throws -> (done: Int, dead: Int)
}

/// One open transaction of an `OutboxStore`, in which any number of deliveries are handled one after another.
package protocol OutboxTransaction {
    /// Runs `body` for `delivery` inside the transaction (its own savepoint) and, if it returns, marks the delivery
    /// done there (at commit if the transaction is batched), fenced by its lease token: the handler's writes and
    /// the marking commit together or not at all. If the lease was taken over, rolls back to the savepoint and
    /// returns `leaseLost`. If `body` throws, rolls
    /// back to the savepoint and writes `onFailure`'s settlement (fenced too) in the same transaction.
    func run(
        _ delivery: Delivery,
        body: @Sendable (PostgresConnection?) async throws -> Void,
        onFailure: @Sendable (any Error) -> Settlement
    ) async throws -> Settlement
}

extension OutboxStore {
    /// Runs and settles one delivery in its own transaction (see `OutboxTransaction.run`).
    package func complete(
        _ delivery: Delivery,
        body: @Sendable (PostgresConnection?) async throws -> Void,
        onFailure: @Sendable (any Error) -> Settlement
    ) async throws -> Settlement {
        try await self.withTransaction(batched: false) { transaction in
            try await transaction.run(delivery, body: body, onFailure: onFailure)
        }
    }
}

/// A batched transaction rolled back because the lease of at least one delivery it handled had been taken over.
package struct BatchLeaseLost: Error, CustomStringConvertible {
    /// The deliveries whose lease was lost.
    package var ids: Set<Int64>

    package init(ids: Set<Int64>) {
        self.ids = ids
    }

    package var description: String { "leases taken over meanwhile: \(self.ids.sorted())" }
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
