import Logging
import PostgresNIO

/// One delivery transaction on one pooled connection: each delivery runs in its own savepoint, so a failing handler
/// rolls back only its own writes and its retry is recorded in the same transaction.
///
/// Savepoints are not released: releasing keeps the subtransaction's id in the transaction anyway, so it would
/// only cost a round trip. `TriggerRuntime.Configuration.transactionBatchSize` keeps the nesting well under the
/// 64 subtransactions PostgreSQL caches per transaction.
final class PostgresOutboxTransaction: OutboxTransaction {
    let connection: PostgresConnection
    let channel: String
    let logger: Logger
    /// Whether successful deliveries are marked done together at commit (`markDeferred`).
    let batched: Bool
    /// Statements sent but not yet waited for, in order.
    private var pending: [EventLoopFuture<PostgresQueryResult>] = []
    /// Batched: the deliveries whose handlers returned, to mark done at commit.
    private var deferred: [Delivery] = []

    init(connection: PostgresConnection, channel: String, logger: Logger, batched: Bool) {
        self.connection = connection
        self.channel = channel
        self.logger = logger
        self.batched = batched
    }

    /// Sends `query` without waiting for its answer. The connection runs statements in the order they were sent,
    /// so whatever is sent next (by the runtime or by a handler) runs after it.
    func send(_ query: PostgresQuery) {
        self.pending.append(self.connection.query(query, logger: self.logger))
    }

    /// Waits for every statement sent so far; throws the first error.
    func flush() async throws {
        let pending = self.pending
        self.pending = []
        var firstError: (any Error)?
        for statement in pending {
            do {
                _ = try await statement.get()
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }

    func run(
        _ delivery: Delivery,
        body: @Sendable (PostgresConnection?) async throws -> Void,
        onFailure: @Sendable (any Error) -> Settlement
    ) async throws -> Settlement {
        self.send("SAVEPOINT delivery")
        let failure: (any Error)?
        do {
            try await body(self.connection)
            failure = nil
        } catch {
            failure = error
        }
        if failure == nil && self.batched {
            // Nothing to wait for: the savepoint's answer and the marking are checked at commit.
            self.deferred.append(delivery)
            return .done
        }
        try await self.flush()
        if let failure {
            try await self.connection.query("ROLLBACK TO SAVEPOINT delivery", logger: self.logger)
            return try await PostgresOutboxStore.settle(
                delivery,
                onFailure(failure),
                connection: self.connection,
                channel: self.channel,
                logger: self.logger
            )
        }
        let rows = try await self.connection.execute(
            PostgresStatements.MarkDoneBatch(ids: [delivery.id], leaseTokens: [delivery.leaseToken]),
            logger: self.logger
        )
        var completed = false
        for try await _ in rows { completed = true }
        guard completed else {
            try await self.connection.query("ROLLBACK TO SAVEPOINT delivery", logger: self.logger)
            return .leaseLost
        }
        return .done
    }
}

extension PostgresOutboxTransaction {
    /// Batched: marks every delivery whose handler returned done, in one statement; throws `BatchLeaseLost` if a
    /// lease was taken over (the caller rolls back).
    func markDeferred() async throws {
        guard !self.deferred.isEmpty else { return }
        let deliveries = self.deferred
        self.deferred = []
        let rows = try await self.connection.execute(
            PostgresStatements.MarkDoneBatch(ids: deliveries.map(\.id), leaseTokens: deliveries.map(\.leaseToken)),
            logger: self.logger
        )
        var marked = Set<Int64>()
        for try await id in rows { marked.insert(id) }
        if marked.count != deliveries.count {
            throw BatchLeaseLost(ids: Set(deliveries.map(\.id)).subtracting(marked))
        }
    }
}

/// The delivery transaction did not commit: PostgreSQL answered COMMIT with `command` (a handler ended or broke
/// the transaction itself), so nothing of it happened.
struct TransactionRolledBack: Error, CustomStringConvertible {
    var command: String
    var description: String { "the delivery transaction did not commit (the server answered \(command))" }
}
