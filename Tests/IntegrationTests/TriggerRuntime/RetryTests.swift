import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import TriggerRuntime

@Suite("TriggerRuntime retries and dead letters", .timeLimit(.minutes(10)))
struct RetryTests {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "payment provider said no" }
    }

    @Test("a throwing function is retried with growing delays, dead-lettered, then replayed to success")
    func retriesThenDeadLetterThenReplay() async throws {
        let attempts = Observations<(attempt: Int, at: ContinuousClock.Instant)>()
        let healthy = Mutex(false)
        var builder = FunctionRegistry()
        let options = FunctionOptions(
            maxAttempts: 4, initialBackoff: .milliseconds(100), maximumBackoff: .seconds(5), jitter: 0.1
        )
        builder.register("charge", on: .create("items"), options: options, as: Item.self) { _, context in
            attempts.append((context.attempt, .now))
            if !healthy.withLock({ $0 }) { throw Failure() }
        }
        let registry = builder
        let (logger, logs) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            let admin = DeliveryAdmin(client: client, logger: logger)
            let id = try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await client.query("INSERT INTO items (id, name, value) VALUES (7, 'x', 1)")
                try await logs.wait("dead letter") { $0.contains { $0.metadata["trigger.outcome"] == "dead" } }

                let retries = logs.entries.filter { $0.metadata["trigger.outcome"] == "retried" }
                let delays = retries.compactMap { $0.metadata["trigger.retry_in_ms"].flatMap { Int($0) } }
                #expect(delays.count == 3)
                #expect(zip(delays, delays.dropFirst()).allSatisfy { $0 < $1 })
                let starts = attempts.entries
                #expect(starts.map(\.attempt) == [1, 2, 3, 4])
                for index in 1..<starts.count {
                    // Never earlier than scheduled.
                    #expect(starts[index].at - starts[index - 1].at >= .milliseconds(delays[index - 1]))
                }

                let dead = try await admin.list(dead: true)
                #expect(dead.count == 1)
                let record = try #require(dead.first)
                #expect(record.status == .dead)
                #expect(record.attempt == 4)
                #expect(record.lastError == "payment provider said no")
                #expect(try await admin.show(record.id).after?.contains("\"name\": \"x\"") == true)

                // Only dead deliveries can be replayed; anything else is refused and changes nothing.
                let missing = await #expect(throws: TriggerRuntimeError.self) { try await admin.retry(record.id + 1000) }
                #expect(missing?.code == .notFound)

                healthy.withLock { $0 = true }
                try await admin.retry(record.id)
                let notDead = await #expect(throws: TriggerRuntimeError.self) { try await admin.retry(record.id) }
                #expect(notDead?.code == .notDead)
                try await logs.wait("replay handled") { $0.contains { $0.metadata["trigger.outcome"] == "handled" } }
                return record.id
            }
            let done = try await admin.show(id)
            #expect(done.status == .done)
            #expect(done.attempt == 1)
            #expect(try await admin.list(dead: true).isEmpty)
        }
    }

    @Test("events committed while no worker runs are all handled when a worker starts")
    func backlogWithoutWorker() async throws {
        let handled = Observations<Int>()
        var builder = FunctionRegistry()
        builder.register("count", on: .write("items"), as: Item.self) { change, _ in
            handled.append(try #require(change.after ?? change.before).id)
        }
        let registry = builder
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query("INSERT INTO items (id, name, value) SELECT g, 'b', 0 FROM generate_series(1, 500) g")
            try await client.query("UPDATE items SET value = 1 WHERE id <= 250")
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.deliveries") == 750)
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                // 180 s: in CI's full parallel suite (now with the chaos city's five processes) 695 of 750 were done at 60 s.
                try await handled.wait("750 deliveries", timeout: .seconds(180)) { $0.count >= 750 }
            }
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.deliveries") == 0)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.done") == 750)
        }
        #expect(handled.entries.count == 750)
    }

    @Test("a handler that outlives its timeout is cancelled and retried")
    func timeout() async throws {
        let attempts = Observations<Int>()
        var builder = FunctionRegistry()
        // A 200 ms timeout makes the first attempt end quickly; on a loaded 2-core machine a later attempt can
        // miss it too (the full parallel suite did, twice), so it may take a few attempts to see one handled.
        let options = FunctionOptions(maxAttempts: 6, timeout: .milliseconds(200), initialBackoff: .milliseconds(10))
        builder.register("slow", on: .create("items"), options: options, as: Item.self) { _, context in
            attempts.append(context.attempt)
            if context.attempt == 1 { try await Task.sleep(for: .seconds(600)) }
        }
        let registry = builder
        let (logger, logs) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await client.query("INSERT INTO items (id, name, value) VALUES (1, 's', 0)")
                try await logs.wait("second attempt handled") {
                    $0.contains { $0.metadata["trigger.outcome"] == "handled" }
                }
            }
            let retried = logs.entries.first { $0.metadata["trigger.outcome"] == "retried" }
            #expect(retried?.metadata["error"]?.contains("timeout") == true)
        }
        #expect(attempts.entries.first == 1)
        #expect(attempts.entries.count >= 2 && attempts.entries == Array(1...attempts.entries.count))
    }
}
