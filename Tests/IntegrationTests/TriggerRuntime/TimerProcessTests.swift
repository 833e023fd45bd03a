import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

@Suite("TriggerRuntime timers across worker processes", .timeLimit(.minutes(10)))
struct TimerProcessTests {
    @Test("a worker killed with a due timer claimed: another worker runs it once, after the lease")
    func sigkillWithTimerClaimed() async throws {
        let handled = Observations<FunctionContext>()
        var registry = FunctionRegistry()
        registry.register("work", on: .create("items"), as: Item.self) { _, _ in }
        registry.registerTimer("ring", as: Int.self) { timer, context in
            try await #require(context.transaction).query(
                "INSERT INTO work_log (item_id, pid) VALUES (\(timer.payload), 0)", logger: context.logger)
            handled.append(context)
        }
        let registered = registry
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registered, logger: logger) { client, _ in
            try await client.query("CREATE TABLE work_log (item_id int, pid int)")
            let url = try await TestDatabase.shared.connectionURL(database: try await ProcessTests.databaseName(client))
            let worker = try WorkerProcess(environment: ["DATABASE_URL": url, "WORKER_LEASE_SECONDS": "3", "HANG_ON": "7"])
            defer { worker.stop() }
            try await worker.lines.wait("the child to start") { $0.contains("ready") }
            _ = try await client.withTransaction(logger: logger) { connection in
                try await PostgresTimers(logger: logger).schedule(
                    "ring", document: "order-7", key: "expire", due: .after(.milliseconds(100)),
                    payload: Data("7".utf8), ifExists: .replace, on: connection)
            }
            try await worker.lines.wait("the child's timer handler to start") { $0.contains("started timer 7") }
            worker.signal(SIGKILL)
            #expect(try await worker.waitForExit() == SIGKILL)
            #expect(
                try await RuntimeHarness.count(
                    client, "SELECT count(*) FROM trigger_runtime.deliveries WHERE operation = 'timer' AND attempt = 1"
                ) == 1)

            try await RuntimeHarness.withWorker(client: client, registry: registered, logger: logger) {
                try await handled.wait("the takeover after the lease") { !$0.isEmpty }
            }
            #expect(handled.entries.map(\.attempt) == [2])
            #expect(handled.entries.map(\.timer?.key) == ["expire"])
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM work_log") == 1)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.deliveries") == 0)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.done") == 1)
        }
    }
}
