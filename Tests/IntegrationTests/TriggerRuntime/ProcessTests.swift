import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

@Suite("TriggerRuntime worker processes", .timeLimit(.minutes(10)))
struct ProcessTests {
    static func registry(_ handled: Observations<FunctionContext>) -> FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("work", on: .create("items"), as: Item.self) { change, context in
            let id = try #require(change.after).id
            try await context.transaction?.query(
                "INSERT INTO work_log (item_id, pid) VALUES (\(id), 0)", logger: context.logger
            )
            handled.append(context)
        }
        return registry
    }

    static func databaseName(_ client: PostgresClient) async throws -> String {
        let rows = try await client.query("SELECT current_database()")
        for try await name in rows.decode(String.self) { return name }
        return ""
    }

    @Test("a worker process killed with SIGKILL mid-handler: its delivery is taken over after the lease; its late completion is refused")
    func sigkillMidHandler() async throws {
        let handled = Observations<FunctionContext>()
        let registry = Self.registry(handled)
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query("CREATE TABLE work_log (item_id int, pid int)")
            let url = try await TestDatabase.shared.connectionURL(database: try await Self.databaseName(client))
            let worker = try WorkerProcess(environment: ["DATABASE_URL": url, "WORKER_LEASE_SECONDS": "3", "HANG_ON": "1"])
            defer { worker.stop() }
            try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'stuck', 0)")
            try await worker.lines.wait("the child's handler to start") { $0.contains("started 1") }
            worker.signal(SIGKILL)
            #expect(try await worker.waitForExit() == SIGKILL)

            // What the dead worker held: its claim token.
            let rows = try await client.query(
                "SELECT id, lease_token, lease_owner, attempt FROM trigger_runtime.deliveries"
            )
            var stale: Delivery?
            for try await (id, token, owner, attempt) in rows.decode((Int64, UUID, String, Int).self) {
                #expect(owner == "test-worker-\(worker.pid)")
                stale = Delivery(
                    id: id, function: "work", table: "public.items", operation: .create, documentKey: "1",
                    before: nil, after: nil, committedAt: Date(), attempt: attempt, leaseToken: token
                )
            }
            let dead = try #require(stale)

            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await handled.wait("takeover after the lease") { !$0.isEmpty }
            }
            #expect(handled.entries.map(\.attempt) == [2])
            #expect(handled.entries.map(\.eventID) == [dead.id])

            // The "dead" worker's completion arrives late: refused, and its writes roll back.
            let store = PostgresOutboxStore(client: client, channel: "trigger_runtime", logger: logger)
            let late = try await store.complete(
                dead,
                body: { connection in
                    try await connection?.query("INSERT INTO work_log (item_id, pid) VALUES (1, -1)", logger: logger)
                },
                onFailure: { _ in .release }
            )
            #expect(late == .leaseLost)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM work_log") == 1)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.done") == 1)
        }
    }

    @Test("SIGTERM during load: in-flight handlers finish, nothing is lost, the process exits 0")
    func sigtermUnderLoad() async throws {
        let handled = Observations<FunctionContext>()
        let registry = Self.registry(handled)
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query("CREATE TABLE work_log (item_id int, pid int)")
            let url = try await TestDatabase.shared.connectionURL(database: try await Self.databaseName(client))
            let worker = try WorkerProcess(
                environment: ["DATABASE_URL": url, "WORKER_CONCURRENCY": "4", "HANDLER_MS": "300"]
            )
            defer { worker.stop() }
            try await client.query("INSERT INTO items (id, name, value) SELECT g, 'load', 0 FROM generate_series(1, 60) g")
            try await worker.lines.wait("handlers in flight") { $0.filter { $0.hasPrefix("started") }.count >= 6 }
            worker.signal(SIGTERM)
            #expect(try await worker.waitForExit() == 0)

            let started = worker.ids("started")
            let finished = worker.ids("finished")
            #expect(Set(started) == Set(finished))
            #expect(started.count < 60)
            // Nothing is left leased; what the child did not take waits for the next worker.
            #expect(
                try await RuntimeHarness.count(
                    client, "SELECT count(*) FROM trigger_runtime.deliveries WHERE lease_token IS NOT NULL"
                ) == 0
            )
            let remaining = 60 - finished.count
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await handled.wait("the rest") { $0.count >= remaining }
            }
            #expect(try await RuntimeHarness.count(client, "SELECT count(DISTINCT item_id) FROM work_log") == 60)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM work_log") == 60)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.done") == 60)
        }
    }
}
