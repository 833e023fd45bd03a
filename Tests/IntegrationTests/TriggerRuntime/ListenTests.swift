import Logging
import PostgresNIO
import ServiceLifecycle
import Testing
import TriggerRuntime

@Suite("TriggerRuntime wake-ups", .timeLimit(.minutes(10)))
struct ListenTests {
    /// One function, `count`, on `items` inserts: records each inserted id in `handled`.
    static func registry(_ handled: Observations<Int>) -> FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("count", on: .create("items"), as: Item.self) { change, _ in
            handled.append(try #require(change.after).id)
        }
        return registry
    }

    @Test("with LISTEN disabled, polling delivers everything")
    func pollingOnly() async throws {
        let handled = Observations<Int>()
        let registry = Self.registry(handled)
        let (logger, logs) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            let configuration = RuntimeHarness.configuration {
                $0.listen = false
                $0.pollInterval = .milliseconds(200)
            }
            try await RuntimeHarness.withWorker(
                client: client, registry: registry, configuration: configuration, logger: logger
            ) {
                for id in 1...50 {
                    try await client.query("INSERT INTO items (id, name, value) VALUES (\(id), 'p', 0)")
                }
                try await handled.wait("50 polled deliveries") { $0.count >= 50 }
            }
        }
        #expect(Set(handled.entries) == Set(1...50))
        #expect(!logs.entries.contains { $0.message == "listening" })
    }

    @Test("when the LISTEN connection is killed, the reconnect re-scan delivers what was missed")
    func listenerKilled() async throws {
        let handled = Observations<Int>()
        let registry = Self.registry(handled)
        let (logger, logs) = Logger.capturing()
        // PSQLError's description hides details; print them if this ever fails on a database error.
        do {
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            // Polling is too slow to matter here: only NOTIFY and the re-scan can deliver within the test.
            let configuration = RuntimeHarness.configuration {
                $0.pollInterval = .seconds(600)
                $0.reconnectBackoff = .seconds(1)
            }
            try await RuntimeHarness.withWorker(
                client: client, registry: registry, configuration: configuration, logger: logger
            ) {
                try await logs.wait("listening") { $0.contains { $0.message == "listening" } }
                try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'before', 0)")
                try await handled.wait("first delivery via NOTIFY") { $0.count >= 1 }

                let killed = try await RuntimeHarness.count(
                    client,
                    """
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = current_database() AND query LIKE 'LISTEN%'
                    """
                )
                #expect(killed == 1)
                try await logs.wait("listener lost") { $0.contains { $0.message.hasPrefix("LISTEN connection lost") } }
                // Committed while nobody listens: the NOTIFY is lost.
                for id in 2...20 {
                    try await client.query("INSERT INTO items (id, name, value) VALUES (\(id), 'missed', 0)")
                }
                try await handled.wait("deliveries after reconnect") { $0.count >= 20 }
                try await logs.wait("listening again") { $0.filter { $0.message == "listening" }.count >= 2 }
            }
        }
        } catch {
            print("listenerKilled: \(String(reflecting: error))")
            throw error
        }
        #expect(Set(handled.entries) == Set(1...20))
    }

    /// When, after the LISTEN connection is killed, the worker is told to shut down.
    enum ShutdownMoment: String, CaseIterable, Sendable {
        /// Right after `pg_terminate_backend` returns: the loss may not have been noticed yet.
        case atOnce
        /// Once the loss is logged: the listener waits out its reconnect backoff.
        case whileReconnecting
        /// Once it listens again, on a new connection.
        case afterReconnect
    }

    /// A worker that never exits on SIGTERM after a lost LISTEN connection would be a production bug (an orphaned
    /// pod until SIGKILL), so the shutdown runs in a task of its own and the test fails, instead of hanging, when it
    /// does not finish in time.
    @Test("after the LISTEN connection is killed, graceful shutdown finishes within a deadline",
        arguments: ShutdownMoment.allCases)
    func shutdownAfterListenerKilled(moment: ShutdownMoment) async throws {
        let registry = Self.registry(Observations<Int>())
        let (logger, logs) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            let configuration = RuntimeHarness.configuration {
                $0.pollInterval = .seconds(600)
                $0.reconnectBackoff = .seconds(1)
            }
            let runtime = TriggerRuntime(client: client, registry: registry, configuration: configuration, logger: logger)
            let group = ServiceGroup(
                services: [runtime], gracefulShutdownSignals: [], cancellationSignals: [],
                logger: Logger(label: "service-group") { _ in SwiftLogNoOpLogHandler() }
            )
            let stopped = Observations<String>()
            let running = Task {
                do {
                    try await group.run()
                    stopped.append("stopped")
                } catch {
                    stopped.append("failed: \(String(reflecting: error))")
                }
            }
            try await logs.wait("listening") { $0.contains { $0.message == "listening" } }
            let killed = try await RuntimeHarness.count(
                client,
                """
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE datname = current_database() AND query LIKE 'LISTEN%'
                """
            )
            #expect(killed == 1)
            switch moment {
            case .atOnce:
                break
            case .whileReconnecting:
                try await logs.wait("listener lost") { $0.contains { $0.message.hasPrefix("LISTEN connection lost") } }
            case .afterReconnect:
                try await logs.wait("listening again") { $0.filter { $0.message == "listening" }.count >= 2 }
            }
            await group.triggerGracefulShutdown()
            do {
                try await stopped.wait("graceful shutdown", timeout: .seconds(15)) { !$0.isEmpty }
            } catch {
                // Leave the stuck group behind (the database is dropped with FORCE) and report where it hangs.
                running.cancel()
                throw error
            }
            #expect(stopped.entries == ["stopped"])
        }
    }
}
