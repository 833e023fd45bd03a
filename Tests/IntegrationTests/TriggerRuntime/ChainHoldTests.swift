import Foundation
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

/// Migration 0007: a chain's later deliveries wait with its held head (leased, or scheduled for a retry), and the
/// next one is made due when the head is done or dead, so a claim does not walk blocked deliveries over and over.
/// The tests read `run_after` from the database: what a hold is, not how fast it makes a claim (BENCHMARKS.md).
@Suite("TriggerRuntime: a held head holds its chain", .timeLimit(.minutes(10)))
struct ChainHoldTests {
    /// One function on updates of `items`; `items` row 1 updated `count` times gives a chain of that length.
    static func registry() -> FunctionRegistry {
        var builder = FunctionRegistry()
        builder.register("ship", on: .update("items"), as: Item.self) { _, _ in }
        return builder
    }

    /// Runs `body` on a prepared database where `items` row 1 was updated `count` times (a chain of that length),
    /// with the outbox store to claim it from.
    static func withChain(
        _ count: Int,
        _ body: @Sendable (PostgresClient, PostgresOutboxStore) async throws -> Void
    ) async throws {
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: Self.registry(), logger: logger) { client, _ in
            try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'parcel', 0)")
            for value in 1...count {
                try await client.query("UPDATE items SET value = \(value) WHERE id = 1")
            }
            try await body(client, PostgresOutboxStore(client: client, channel: "trigger_runtime", logger: logger))
        }
    }

    /// The chain's ready deliveries by id: seconds from the database's now until each is due (negative: due).
    static func dueIn(client: PostgresClient) async throws -> [(id: Int64, seconds: Double)] {
        let rows = try await client.query(
            """
            SELECT id, extract(epoch FROM run_after - clock_timestamp())::float8
            FROM trigger_runtime.deliveries WHERE status = 'ready' ORDER BY id
            """
        )
        var result: [(Int64, Double)] = []
        for try await row in rows.decode((Int64, Double).self) { result.append(row) }
        return result
    }

    @Test("a claimed head holds the later deliveries for its lease; done makes the next one due, the rest stay held")
    func claimHoldsAndDoneWakes() async throws {
        try await Self.withChain(4) { client, store in
            let before = try await Self.dueIn(client: client)
            #expect(before.count == 4)
            #expect(before.allSatisfy { $0.seconds <= 0 }, "all due before the claim: \(before)")

            let claimed = try await store.claimShip()
            // Only the head may run, as before; the other three now wait with it, until about its lease's end.
            #expect(claimed.map(\.id) == [before[0].id])
            let held = try await Self.dueIn(client: client)
            #expect(held.allSatisfy { $0.seconds > 500 }, "head leased, the others held: \(held)")
            #expect(try await store.claimShip(owner: "w2").isEmpty)

            let head = try #require(claimed.first)
            let settled = try await store.complete(head, body: { _ in }, onFailure: { _ in .release })
            #expect(settled == .done)
            let woken = try await Self.dueIn(client: client)
            #expect(woken.map(\.id) == before.dropFirst().map(\.id))
            #expect(woken[0].seconds <= 0, "the next one is due at once: \(woken)")
            #expect(woken.dropFirst().allSatisfy { $0.seconds > 500 }, "the rest stay held: \(woken)")

            // The chain runs to its end in order, each woken by the one before, never waiting for a lease.
            var order: [Int64] = []
            while let next = try await store.claimShip()
                .first
            {
                order.append(next.id)
                #expect(try await store.complete(next, body: { _ in }, onFailure: { _ in .release }) == .done)
            }
            #expect(order == before.dropFirst().map(\.id))
            #expect(try await Self.dueIn(client: client).isEmpty)
        }
    }

    @Test("a retry holds the chain until the retry is due; a dead head makes the next one due")
    func retryHoldsAndDeathWakes() async throws {
        try await Self.withChain(3) { client, store in
            // A short lease, so the hold that follows can only come from the retry's 20 minutes.
            let head = try #require(
                try await store.claimShip(lease: .seconds(5)).first
            )
            let retried = try await store.complete(
                head,
                body: { _ in throw CancellationError() },
                onFailure: { _ in .retry(delay: .seconds(1200), error: "HyperTrack 503") }
            )
            #expect(retried == .retry(delay: .seconds(1200), error: "HyperTrack 503"))
            let held = try await Self.dueIn(client: client)
            #expect(held.count == 3)
            #expect(held.allSatisfy { $0.seconds > 1100 }, "the head and its chain wait for the retry: \(held)")

            // The retry falls due (moved, not waited for), fails for good, and the next delivery runs at once.
            try await client.query("UPDATE trigger_runtime.deliveries SET run_after = now() WHERE id = \(head.id)")
            let again = try #require(
                try await store.claimShip().first
            )
            #expect(again.id == head.id)
            let dead = try await store.complete(again, body: { _ in throw CancellationError() }) { _ in
                .dead(error: "gave up")
            }
            #expect(dead == .dead(error: "gave up"))
            let after = try await Self.dueIn(client: client)
            #expect(after.map(\.id) == held.dropFirst().map(\.id))
            #expect(after[0].seconds <= 0, "the next one is due at once: \(after)")
            #expect(after[1].seconds > 500, "the last stays held behind it: \(after)")
            let next = try await store.claimShip()
            #expect(next.map(\.id) == [after[0].id])
        }
    }

    @Test("a hold never runs a delivery early: with the hold's rows made due by hand, the claim still takes the head only")
    func holdIsNotTheOrderRule() async throws {
        try await Self.withChain(3) { client, store in
            let head = try #require(
                try await store.claimShip().first
            )
            // A wrong hold (a wake that came too early, say) only makes the claim look at the rows again.
            try await client.query("UPDATE trigger_runtime.deliveries SET run_after = now() WHERE id <> \(head.id)")
            #expect(try await store.claimShip(owner: "w2").isEmpty)
        }
    }
}

extension ChainHoldTests {
    @Test("holding and waking probe each head's chain on the statistics of a drained queue (migration 0010)")
    func holdsAndWakesProbeTheirChains() async throws {
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: Self.registry(), logger: logger) { client, _ in
            // What autovacuum leaves when it visits a queue drained to a few rows (here ten dead letters): pages and
            // few live rows in them, so the planner estimates a handful whatever the queue holds until the next
            // analysis.
            try await client.query(
                "INSERT INTO items (id, name, value) SELECT g, 'x', 0 FROM generate_series(1, 3000) g"
            )
            try await client.query("UPDATE items SET value = 1 WHERE id > 1000")
            try await client.query("DELETE FROM trigger_runtime.deliveries WHERE id % 200 <> 0")
            try await client.query("UPDATE trigger_runtime.deliveries SET status = 'dead'")
            try await client.query("VACUUM (TRUNCATE false) trigger_runtime.deliveries")
            // 1,000 chains of three.
            for value in 2...4 {
                try await client.query("UPDATE items SET value = \(value) WHERE id <= 1000")
            }
            try await client.withConnection { connection in
                func fetched() async throws -> Int64 {
                    try await RuntimeHarness.indexFetches(connection, logger: logger)
                }
                func count(_ condition: String) async throws -> Int64 {
                    let sql =
                        "SELECT count(*)::int8 FROM trigger_runtime.deliveries WHERE status = 'ready' AND \(condition)"
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                    var value: Int64 = -1
                    for try await count in rows.decode(Int64.self) { value = count }
                    return value
                }
                try await connection.query("BEGIN", logger: logger)
                try await connection.query(
                    "CREATE TEMP TABLE claimed AS SELECT * FROM trigger_runtime.claim(ARRAY['ship'], 32, 'probe', 30)",
                    logger: logger
                )
                let claimed = try await connection.query("SELECT count(*)::int8 FROM claimed", logger: logger)
                for try await value in claimed.decode(Int64.self) { #expect(value == 32) }
                let afterClaim = try await fetched()
                // The 32 heads' 64 successors wait with them. The claim of 0007-0009 held them in its lease's
                // statement, which the planner may turn into a scan of the queue per row of the queue.
                #expect(try await count("lease_token IS NULL AND run_after > now() + interval '20 seconds'") == 64)
                #expect(afterClaim < 1_000, "rows the claim fetched through indexes: \(afterClaim)")

                // The heads done: each chain's next delivery is due at once, found by its own probe.
                let beforeWake = try await fetched()
                try await connection.query(
                    """
                    SELECT trigger_runtime.wake_chains(array_agg(function_name), array_agg(document_key), array_agg(id))
                    FROM claimed
                    """,
                    logger: logger
                )
                let afterWake = try await fetched()
                // Due: the 968 chains not claimed (three each) and the 32 woken; still held: each claimed chain's
                // third.
                #expect(try await count("lease_token IS NULL AND run_after <= now()") == 968 * 3 + 32)
                #expect(try await count("lease_token IS NULL AND run_after > now() + interval '20 seconds'") == 32)
                let woken = afterWake - beforeWake
                #expect(woken < 1_000, "rows the wake fetched through indexes: \(woken)")
                try await connection.query("ROLLBACK", logger: logger)
            }
        }
    }
}

extension PostgresOutboxStore {
    /// The claim these tests make: whatever of "ship" may run, as `owner`, leased for `lease`.
    fileprivate func claimShip(owner: String = "w", lease: Duration = .seconds(600)) async throws -> [Delivery] {
        try await self.claim(limit: 10, functions: ["ship"], owner: owner, lease: lease)
    }
}
