import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import TriggerRuntime

@Suite("TriggerRuntime leases and scale-out", .timeLimit(.minutes(10)))
struct LeaseTests {
    @Test("a delivery claimed by a worker that died is taken over after its lease; the dead worker's late completion is refused")
    func takeoverAndFencing() async throws {
        let handled = Observations<FunctionContext>()
        var builder = FunctionRegistry()
        builder.register("ship", on: .create("items"), as: Item.self) { _, context in
            try await context.transaction?.query("INSERT INTO shipped (by) VALUES ('live')", logger: context.logger)
            handled.append(context)
        }
        let registry = builder
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query("CREATE TABLE shipped (by text)")
            try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'parcel', 0)")
            // The "dead" worker: claims the delivery with a 1 s lease, then never renews or completes it.
            let store = PostgresOutboxStore(client: client, channel: "trigger_runtime", logger: logger)
            let stale = try #require(
                try await store.claim(limit: 10, functions: ["ship"], owner: "dead-worker", lease: .seconds(1)).first
            )
            #expect(stale.attempt == 1)

            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await handled.wait("takeover") { !$0.isEmpty }
            }
            #expect(handled.entries.map(\.attempt) == [2])
            #expect(handled.entries.first?.eventID == stale.id)

            // The dead worker wakes up and tries to complete: its token no longer matches, so its handler's writes
            // roll back and nothing is marked.
            let late = try await store.complete(
                stale,
                body: { connection in
                    try await connection?.query("INSERT INTO shipped (by) VALUES ('zombie')", logger: logger)
                },
                onFailure: { _ in .release }
            )
            #expect(late == .leaseLost)
            let retried = try await store.complete(
                stale,
                body: { _ in throw CancellationError() },
                onFailure: { _ in .retry(delay: .zero, error: "zombie") }
            )
            #expect(retried == .leaseLost)
            let rows = try await client.query("SELECT by FROM shipped")
            var writers: [String] = []
            for try await by in rows.decode(String.self) { writers.append(by) }
            #expect(writers == ["live"])
            let record = try await DeliveryAdmin(client: client, logger: logger).show(stale.id)
            #expect(record.status == .done)
            #expect(record.attempt == 2)
        }
    }

    @Test("two workers on one database handle 10,000 events, none twice and none missed")
    func twoWorkersTenThousandEvents() async throws {
        let seen = Mutex([Int: Int]())
        let handled = Observations<Void>()
        var builder = FunctionRegistry()
        builder.register("count", on: .create("items"), as: Item.self) { change, _ in
            let id = try #require(change.after).id
            seen.withLock { $0[id, default: 0] += 1 }
            handled.append(())
        }
        let registry = builder
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, configuration in
            let second = PostgresClient(configuration: configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await second.run() }
                defer { group.cancelAll() }
                let workers = try await withThrowingTaskGroup(of: Set<String>.self) { workers in
                    for (index, workerClient) in [client, second].enumerated() {
                        workers.addTask {
                            try await RuntimeHarness.withWorker(
                                client: workerClient,
                                registry: registry,
                                configuration: RuntimeHarness.configuration { $0.workerID = "worker-\(index)" },
                                logger: logger
                            ) {
                                try await handled.wait("10,000 events", timeout: .seconds(480)) { $0.count >= 10_000 }
                                return ["worker-\(index)"]
                            }
                        }
                    }
                    for batch in 0..<10 {
                        try await client.query(
                            """
                            INSERT INTO items (id, name, value)
                            SELECT g, 'e', 0 FROM generate_series(\(batch * 1000 + 1), \(batch * 1000 + 1000)) g
                            """
                        )
                    }
                    return try await workers.reduce(into: Set<String>()) { $0.formUnion($1) }
                }
                #expect(workers.count == 2)
            }
            let byWorker = try await client.query(
                "SELECT lease_owner, count(*)::int8 FROM trigger_runtime.done GROUP BY lease_owner"
            )
            var counts: [String: Int64] = [:]
            for try await (owner, count) in byWorker.decode((String, Int64).self) { counts[owner] = count }
            #expect(counts.values.reduce(0, +) == 10_000)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.deliveries") == 0)
        }
        let counts = seen.withLock { $0 }
        #expect(counts.count == 10_000)
        #expect(counts.values.allSatisfy { $0 == 1 })
    }

    @Test("a handler that runs longer than the lease keeps it: renewals stop another worker from taking it over")
    func leaseRenewal() async throws {
        let handled = Observations<FunctionContext>()
        var builder = FunctionRegistry()
        builder.register("long", on: .create("items"), as: Item.self) { _, context in
            handled.append(context)
            // Work that outlasts the 4 s lease (renewed every 200 ms: twenty chances per lease; with a 2 s lease
            // the full parallel suite on a loaded 2-core machine once starved every renewal of one lease).
            try await Task.sleep(for: .seconds(7))
        }
        let registry = builder
        let (logger, logs) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            let configurations = (0..<2).map { index in
                RuntimeHarness.configuration {
                    $0.leaseDuration = .seconds(4)
                    $0.leaseRenewalInterval = .milliseconds(200)
                    $0.pollInterval = .milliseconds(100)
                    $0.workerID = "worker-\(index)"
                }
            }
            try await RuntimeHarness.withWorkers(
                client: client, registry: registry, configurations: configurations, logger: logger
            ) {
                try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'long', 0)")
                try await logs.wait("handled") { $0.contains { $0.metadata["trigger.outcome"] == "handled" } }
            }
        }
        #expect(handled.entries.map(\.attempt) == [1])
        #expect(!logs.entries.contains { $0.metadata["trigger.outcome"] == "lease_lost" })
    }

    @Test("done deliveries are pruned after the retention period, dead ones after theirs")
    func retention() async throws {
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: FunctionRegistry(), logger: logger) { client, _ in
            try await client.query(
                """
                INSERT INTO trigger_runtime.done
                    (id, function_name, table_name, operation, document_key, committed_at, attempt, done_at)
                SELECT g, 'f', 'public.items', 'create', g::text, now(), 1,
                       CASE WHEN g <= 15000 THEN now() - interval '2 days' ELSE now() END
                FROM generate_series(1, 15100) g
                """
            )
            // Dead deliveries: 3 died 40 days ago, 2 died an hour ago; a ready one that is long overdue stays.
            try await client.query(
                """
                INSERT INTO trigger_runtime.deliveries
                    (function_name, table_name, operation, document_key, status, run_after, last_error)
                SELECT 'f', 'public.items', 'create', g::text, CASE WHEN g <= 5 THEN 'dead' ELSE 'ready' END,
                       CASE WHEN g <= 3 OR g = 6 THEN now() - interval '40 days' ELSE now() - interval '1 hour' END,
                       'boom'
                FROM generate_series(1, 6) g
                """
            )
            let store = PostgresOutboxStore(client: client, channel: "trigger_runtime", logger: logger)
            let first = try await store.prune(olderThan: .seconds(86_400), deadOlderThan: .seconds(30 * 86_400))
            #expect(first.done == 15_000 && first.dead == 3)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.done") == 100)
            let left = "SELECT count(*) FROM trigger_runtime.deliveries WHERE document_key IN ('4', '5', '6')"
            #expect(try await RuntimeHarness.count(client, PostgresQuery(unsafeSQL: left)) == 3)
            let again = try await store.prune(olderThan: .seconds(86_400), deadOlderThan: .seconds(30 * 86_400))
            #expect(again.done == 0 && again.dead == 0)
        }
    }

    @Test("a dead-lettered delivery records when it died, which its retention counts from")
    func deadSince() async throws {
        let (logger, logs) = Logger.capturing()
        var registry = FunctionRegistry()
        registry.register("fails", on: .create("items"), options: FunctionOptions(maxAttempts: 1), as: Item.self) {
            _, _ in throw Boom()
        }
        let prepared = registry
        try await RuntimeHarness.withPreparedDatabase(registry: prepared, logger: logger) { client, _ in
            try await RuntimeHarness.withWorker(client: client, registry: prepared, logger: logger) {
                try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'x', 0)")
                try await logs.wait("dead-lettered") { $0.contains { $0.metadata["trigger.outcome"] == "dead" } }
            }
            // Not the claim's lease end (10 s ahead here): the moment it died, just now.
            let age = "SELECT (extract(epoch FROM now() - run_after) * 1000)::int8 FROM trigger_runtime.deliveries"
            let milliseconds = try await RuntimeHarness.count(client, PostgresQuery(unsafeSQL: age))
            #expect(milliseconds >= 0 && milliseconds < 60_000)
        }
    }

    private struct Boom: Error {}
}
