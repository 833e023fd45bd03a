import Logging
import PostgresNIO
import Synchronization
import Testing
import TriggerRuntime

@Suite("TriggerRuntime ordering", .timeLimit(.minutes(10)))
struct OrderingTests {
    /// Counts handlers running at once, per document and overall.
    final class Concurrency: Sendable {
        private struct State {
            var running: [Int: Int] = [:]
            var maxPerDocument = 0
            var maxOverall = 0
        }
        private let state = Mutex(State())

        func enter(_ key: Int) {
            self.state.withLock { state in
                state.running[key, default: 0] += 1
                state.maxPerDocument = max(state.maxPerDocument, state.running[key] ?? 0)
                state.maxOverall = max(state.maxOverall, state.running.values.reduce(0, +))
            }
        }

        func leave(_ key: Int) {
            self.state.withLock { $0.running[key, default: 0] -= 1 }
        }

        var maxPerDocument: Int { self.state.withLock { $0.maxPerDocument } }
        var maxOverall: Int { self.state.withLock { $0.maxOverall } }
    }

    @Test("1,000 rapid updates to one row run in commit order, one at a time, while other rows run in parallel")
    func oneDocumentInCommitOrder() async throws {
        let hot = Observations<Int>()
        let others = Observations<Int>()
        let concurrency = Concurrency()
        var builder = FunctionRegistry()
        builder.register("track", on: .update("items"), as: Item.self) { change, context in
            let item = try #require(change.after)
            concurrency.enter(item.id)
            defer { concurrency.leave(item.id) }
            if item.id == 1 {
                hot.append(item.value)
            } else {
                // Each other row's first delivery stays in flight until the hot row has made progress: the hot
                // row can only get there if it runs in parallel with them.
                if item.value == 1 { try await hot.wait("hot row progress while another row runs") { $0.count >= 20 } }
                others.append(item.id)
            }
        }
        let registry = builder
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query(
                "INSERT INTO items (id, name, value) SELECT g, 'row', 0 FROM generate_series(1, 5) AS g"
            )
            // Leases long enough that none expires while the other rows' first deliveries wait for the hot row:
            // an expired lease hands its delivery out again while the first handler still runs (fencing then
            // refuses the first one's commit), which CI's loaded full suite once did at the harness's 10 s. This
            // test is about the order of claims; LeaseTests are about expiry.
            let configuration = RuntimeHarness.configuration {
                $0.leaseDuration = .seconds(120)
                $0.leaseRenewalInterval = .seconds(5)
            }
            try await RuntimeHarness.withWorker(
                client: client, registry: registry, configuration: configuration, logger: logger
            ) {
                try await client.query("UPDATE items SET value = 1 WHERE id > 1")
                try await client.withConnection { connection in
                    for value in 1...1000 {
                        try await connection.query("UPDATE items SET value = \(value) WHERE id = 1", logger: logger)
                        if value % 100 == 0 {
                            try await connection.query(
                                "UPDATE items SET value = value + 1 WHERE id > 1", logger: logger
                            )
                        }
                    }
                }
                try await hot.wait("1000 hot-row deliveries") { $0.count >= 1000 }
                try await others.wait("other rows' deliveries") { $0.count >= 4 * 11 }
            }
        }
        #expect(hot.entries == Array(1...1000))
        #expect(concurrency.maxPerDocument == 1)
        #expect(concurrency.maxOverall >= 2)
    }
}
