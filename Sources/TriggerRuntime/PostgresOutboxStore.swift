import Foundation
import Logging
import PostgresNIO

/// The outbox in `trigger_runtime.deliveries`.
package struct PostgresOutboxStore: OutboxStore {
    let client: PostgresClient
    let channel: String
    let logger: Logger
    /// Whether delivery transactions wait for their WAL flush (`TriggerRuntime.Configuration.synchronousCompletion`).
    let synchronousCompletion: Bool

    package init(client: PostgresClient, channel: String, logger: Logger, synchronousCompletion: Bool = true) {
        self.client = client
        self.channel = channel
        self.logger = logger
        self.synchronousCompletion = synchronousCompletion
    }

    package func claim(limit: Int, functions: [FunctionName], owner: String, lease: Duration) async throws -> [Delivery] {
        let statement = PostgresStatements.Claim(
            functions: functions.map(\.rawValue),
            limit: Int32(clamping: limit),
            owner: owner,
            leaseSeconds: lease.secondsValue
        )
        let claimed = try await self.client.withConnectionClosedOnFailure { connection in
            var claimed: [Delivery] = []
            for try await delivery in try await connection.execute(statement, logger: self.logger) {
                claimed.append(delivery)
            }
            return claimed
        }
        // Commit order within the batch (the claim orders by due time, which a retried delivery may change).
        return claimed.sorted { $0.id < $1.id }
    }

    package func withTransaction<Result: Sendable>(
        batched: Bool,
        _ body: (any OutboxTransaction) async throws -> Result
    ) async throws -> Result {
        let logger = self.logger
        return try await self.client.withConnectionClosedOnFailure { connection in
            let transaction = PostgresOutboxTransaction(
                connection: connection,
                channel: self.channel,
                logger: logger,
                batched: batched
            )
            // Sent without waiting: the first savepoint and the handler's first statement follow in the same flight.
            transaction.send("BEGIN")
            if !self.synchronousCompletion { transaction.send("SET LOCAL synchronous_commit = off") }
            let result: Result
            do {
                result = try await body(transaction)
                try await transaction.flush()
                try await transaction.markDeferred()
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
            let commit: PostgresQueryResult = try await connection.query("COMMIT", logger: logger).get()
            guard commit.metadata.command == "COMMIT" else {
                // A handler ended or broke the transaction itself: PostgreSQL rolled everything back.
                throw TransactionRolledBack(command: commit.metadata.command)
            }
            return result
        }
    }

    /// Writes a failure, retry or release, fenced by the lease token.
    static func settle(
        _ delivery: Delivery,
        _ settlement: Settlement,
        connection: PostgresConnection,
        channel: String,
        logger: Logger
    ) async throws -> Settlement {
        let query: PostgresQuery
        switch settlement {
        case .done, .leaseLost:
            return settlement
        case .retry(let delay, let error):
            // The chain's later deliveries wait with it (migration 0007).
            query = """
                WITH r AS (
                    UPDATE trigger_runtime.deliveries
                    SET run_after = now() + make_interval(secs => \(delay.secondsValue)), last_error = \(error),
                        lease_owner = NULL, lease_token = NULL
                    WHERE id = \(delivery.id) AND lease_token = \(delivery.leaseToken)
                    RETURNING id, function_name, document_key, run_after
                ),
                held AS (\(unescaped: RuntimeSchema.holding("r")))
                SELECT r.id FROM r, held
                """
        case .dead(let error):
            // The chain's next delivery runs now (migration 0007).
            query = """
                WITH r AS (
                    UPDATE trigger_runtime.deliveries
                    SET status = 'dead', last_error = \(error), lease_owner = NULL, lease_token = NULL,
                        run_after = now()
                    WHERE id = \(delivery.id) AND lease_token = \(delivery.leaseToken)
                    RETURNING id, function_name, document_key
                ),
                woken AS (\(unescaped: RuntimeSchema.waking("r")))
                SELECT r.id FROM r, woken
                """
        case .release:
            let released = try await Self.release([delivery], connection: connection, channel: channel, logger: logger)
            return released.isEmpty ? .leaseLost : settlement
        }
        let rows = try await connection.query(query, logger: logger)
        var updated = false
        for try await _ in rows.decode(Int64.self) { updated = true }
        return updated ? settlement : .leaseLost
    }

    /// Rows locked by an open delivery transaction of this worker (being marked done or settled) are skipped, not
    /// waited for: waiting could deadlock with a transaction that handles several deliveries. They count as held:
    /// their transaction either deletes them or, if it rolls back, the next renewal extends them.
    package func renew(_ deliveries: [Delivery], lease: Duration) async throws -> Set<Int64> {
        guard !deliveries.isEmpty else { return [] }
        return try await self.query(
            """
            WITH mine AS (
                SELECT id FROM trigger_runtime.deliveries
                WHERE id = ANY(\(deliveries.map(\.id))) AND lease_token = ANY(\(deliveries.map(\.leaseToken)))
            ),
            unlocked AS (
                SELECT id FROM trigger_runtime.deliveries
                WHERE id IN (SELECT id FROM mine) AND lease_token = ANY(\(deliveries.map(\.leaseToken)))
                FOR UPDATE SKIP LOCKED
            ),
            renewed AS (
                UPDATE trigger_runtime.deliveries d
                SET run_after = clock_timestamp() + make_interval(secs => \(lease.secondsValue))
                FROM unlocked WHERE d.id = unlocked.id
                RETURNING d.id
            )
            SELECT id FROM mine -- renewed, or locked by this worker's open delivery transaction
            """
        ) { rows in
            var held = Set<Int64>()
            for try await id in rows.decode(Int64.self) { held.insert(id) }
            return held
        }
    }

    package func release(_ deliveries: [Delivery]) async throws {
        guard !deliveries.isEmpty else { return }
        _ = try await self.client.withConnectionClosedOnFailure { connection in
            try await Self.release(deliveries, connection: connection, channel: self.channel, logger: self.logger)
        }
    }

    /// Hands back the deliveries whose leases `deliveries` still hold, in one statement (the attempt is not
    /// counted), and notifies once so a worker claims them at once; returns the ids handed back.
    static func release(
        _ deliveries: [Delivery],
        connection: PostgresConnection,
        channel: String,
        logger: Logger
    ) async throws -> Set<Int64> {
        let rows = try await connection.query(
            """
            WITH r AS (
                UPDATE trigger_runtime.deliveries d
                SET run_after = now(), attempt = greatest(d.attempt - 1, 0), lease_owner = NULL, lease_token = NULL
                FROM unnest(\(deliveries.map(\.id))::int8[], \(deliveries.map(\.leaseToken))::uuid[]) AS h(id, token)
                WHERE d.id = h.id AND d.lease_token = h.token
                RETURNING d.id
            ),
            notified AS (SELECT pg_notify(\(channel), '') WHERE EXISTS (SELECT FROM r))
            SELECT r.id FROM r, notified
            """,
            logger: logger
        )
        var released = Set<Int64>()
        for try await id in rows.decode(Int64.self) { released.insert(id) }
        return released
    }

    /// Written without waiting for the WAL flush: a declaration lost in a crash only makes writers notify.
    package func declareAwake(owner: String, channel: String, for duration: Duration) async throws {
        try await self.query(
            """
            WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
            INSERT INTO trigger_runtime.awake_workers (worker, channel, until)
            SELECT \(owner), \(channel), clock_timestamp() + make_interval(secs => \(duration.secondsValue)) FROM async
            ON CONFLICT (worker) DO UPDATE SET channel = excluded.channel, until = excluded.until
            """
        ) { _ in }
    }

    /// The horizon is read by a second statement, after the deletion committed.
    package func withdrawAwake(owner: String, channel: String) async throws -> Int64 {
        try await self.client.withConnectionClosedOnFailure { connection in
            try await connection.query(
                """
                WITH gone AS (DELETE FROM trigger_runtime.awake_workers WHERE worker = \(owner))
                SELECT pg_notify(\(channel), '')
                """,
                logger: self.logger
            )
            let rows = try await connection.query(
                "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::int8",
                logger: self.logger
            )
            for try await horizon in rows.decode(Int64.self) { return horizon }
            return .max  // no row (cannot happen): a horizon that never passes; settling ends at its time limit
        }
    }

    /// The snapshot's xmin is the server's, not the database's: a long transaction in any database of the cluster
    /// holds it, and the worker then keeps settling (a claim per paced interval) until it ends or a poll interval
    /// has passed. Narrowing it to this database (`pg_stat_activity.backend_xid`) would depend on the role's right
    /// to see other sessions, where a hidden row would end settling early and leave a delivery to the poll.
    package func horizonPassed(_ horizon: Int64) async throws -> Bool {
        try await self.query("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::int8 >= \(horizon)") { rows in
            for try await passed in rows.decode(Bool.self) { return passed }
            return false
        }
    }

    /// Only future deliveries count: a due row that the claim skipped is blocked behind an earlier delivery of its
    /// document, and the worker running that one re-scans when it finishes. (A row held with its chain's head,
    /// migration 0007, counts as future: a worker may wake for it and find it still blocked, which costs a claim.)
    /// Pending timers and schedules count too, so a sleeping worker wakes when the earliest falls due (a due timer
    /// is promoted by the next claim, a due schedule ticks at the worker's next schedule check).
    package func secondsUntilNextDue(functions: [FunctionName]) async throws -> Double? {
        let names = functions.map(\.rawValue)
        return try await self.query(
            """
            SELECT extract(epoch FROM least(
                (SELECT min(n.run_after) FROM unnest(\(names)::text[]) AS f(name) CROSS JOIN LATERAL (
                    SELECT run_after FROM trigger_runtime.deliveries
                    WHERE function_name = f.name AND status = 'ready' AND run_after > now()
                    ORDER BY run_after LIMIT 1) n),  -- one range of deliveries_function_ready_idx each (0008)
                (SELECT due_at FROM trigger_runtime.timers WHERE function_name = ANY(\(names))
                 ORDER BY due_at LIMIT 1),
                (SELECT min(next_run_at) FROM trigger_runtime.schedules WHERE function_name = ANY(\(names)))
            ) - clock_timestamp())::float8
            """
        ) { rows in
            var seconds: Double?
            for try await value in rows.decode(Double?.self) { seconds = value }
            return seconds
        }
    }

    /// A dead delivery's `run_after` records when it died (the claim never reads it for dead rows).
    package func prune(olderThan age: Duration, deadOlderThan deadAge: Duration) async throws -> (done: Int, dead: Int) {
        let done = try await self.deleteInChunks(
            """
            DELETE FROM trigger_runtime.done WHERE id IN (
                SELECT id FROM trigger_runtime.done
                WHERE done_at < now() - make_interval(secs => \(age.secondsValue)) LIMIT 10000)
            """
        )
        let dead = try await self.deleteInChunks(
            """
            DELETE FROM trigger_runtime.deliveries WHERE id IN (
                SELECT id FROM trigger_runtime.deliveries
                WHERE status = 'dead' AND run_after < now() - make_interval(secs => \(deadAge.secondsValue))
                LIMIT 10000)
            """
        )
        return (done, dead)
    }

    /// Runs `delete` (which removes at most 10,000 rows) until it removes fewer; returns the total.
    private func deleteInChunks(_ delete: String) async throws -> Int {
        var total = 0
        while true {
            let sql = "WITH gone AS (\(delete) RETURNING 1) SELECT count(*)::int8 FROM gone"
            let count = try await self.query(PostgresQuery(unsafeSQL: sql)) { rows in
                var count = 0
                for try await value in rows.decode(Int64.self) { count = Int(value) }
                return count
            }
            total += count
            if count < 10000 { return total }
        }
    }

    /// `client.query` on a lease that closes a connection failing at the connection level before the pool can hand
    /// it out again (see `withConnectionClosedOnFailure`): a plain `client.query` returns such a connection at once,
    /// and the next query written to it may never be answered, a cancellation-deaf await that can stall the worker's
    /// shutdown. `consume` reads the rows inside the lease.
    private func query<T: Sendable>(
        _ query: PostgresQuery,
        _ consume: (PostgresRowSequence) async throws -> T
    ) async throws -> T {
        try await self.client.withConnectionClosedOnFailure { connection in
            try await consume(try await connection.query(query, logger: self.logger))
        }
    }
}
