import Foundation
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

@Suite("Writers skip NOTIFY while a worker is awake", .timeLimit(.minutes(10)))
struct AwakeTests {
    /// Listens on `channel` (the runtime's by default) during `body`, recording each notification's payload
    /// (`"listening"` first).
    static func withListener<T: Sendable>(
        client: PostgresClient,
        channel: String = TriggerRuntime.Configuration.defaultChannel,
        _ body: @Sendable (Observations<String>) async throws -> T
    ) async throws -> T {
        let payloads = Observations<String>()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        payloads.append("listening")
                        for try await notification in notifications { payloads.append(notification.payload) }
                    }
                }
            }
            defer { group.cancelAll() }
            try await payloads.wait("listening") { $0.contains("listening") }
            return try await body(payloads)
        }
    }

    /// What `action` returned, and what `channel` got from it: the payloads of its notifications up to a marker sent
    /// after it (notifications arrive in commit order). `payloads` are a ``withListener(client:channel:_:)``'s.
    static func notified<T>(
        by action: () async throws -> T,
        client: PostgresClient,
        channel: String = TriggerRuntime.Configuration.defaultChannel,
        payloads: Observations<String>
    ) async throws -> (result: T, payloads: [String]) {
        let result = try await action()
        let marker = "marker \(UUID().uuidString)"
        try await client.query("SELECT pg_notify(\(channel), \(marker))")
        try await payloads.wait(marker) { $0.contains(marker) }
        let entries = payloads.entries
        let end = try #require(entries.firstIndex(of: marker))
        let start = try #require(entries[..<end].lastIndex { $0 == "listening" || $0.hasPrefix("marker ") })
        return (result, Array(entries[(start + 1)..<end]))
    }

    @Test("the capture trigger skips its NOTIFY only for an unexpired declaration on its channel, in READ COMMITTED")
    func captureSkipsNotify() async throws {
        let registry = ListenTests.registry(Observations<Int>())
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await Self.withListener(client: client) { payloads in
                // Each step inserts a row, then sends a marker: notifications arrive in commit order, so what
                // arrives between two markers is what the step's capture sent.
                var step = 0
                func inserted(isolation: String? = nil, awake: String?) async throws -> [String] {
                    step += 1
                    try await client.query("DELETE FROM trigger_runtime.awake_workers")
                    if let awake { try await client.query(PostgresQuery(unsafeSQL: awake)) }
                    try await client.withConnection { connection in
                        if let isolation {
                            try await connection.query(
                                PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"), logger: logger)
                        }
                        try await connection.query(
                            "INSERT INTO items (id, name, value) VALUES (\(step), 'x', 0)", logger: logger)
                        if isolation != nil { try await connection.query("COMMIT", logger: logger) }
                    }
                    let marker = "marker \(step)"
                    try await client.query("SELECT pg_notify(\(TriggerRuntime.Configuration.defaultChannel), \(marker))")
                    try await payloads.wait(marker) { $0.contains(marker) }
                    let entries = payloads.entries
                    let end = entries.firstIndex(of: marker)!
                    let start = entries[..<end].lastIndex { $0 == "listening" || $0.hasPrefix("marker ") }!
                    return Array(entries[(start + 1)...end])
                }
                let awakeHere = """
                    INSERT INTO trigger_runtime.awake_workers VALUES ('w1', 'trigger_runtime', clock_timestamp() + interval '1 hour')
                    """
                let asleep = try await inserted(awake: nil)
                #expect(asleep == ["", "marker 1"], "no worker awake: notify")
                let awake = try await inserted(awake: awakeHere)
                #expect(awake == ["marker 2"], "a worker awake: skip")
                let repeatableRead = try await inserted(isolation: "REPEATABLE READ", awake: awakeHere)
                #expect(repeatableRead == ["", "marker 3"], "a snapshot older than the check could miss a withdrawal: notify")
                let expired = """
                    INSERT INTO trigger_runtime.awake_workers VALUES ('w1', 'trigger_runtime', clock_timestamp() - interval '1 second')
                    """
                let afterExpiry = try await inserted(awake: expired)
                #expect(afterExpiry == ["", "marker 4"], "an expired declaration: notify")
                let elsewhere = """
                    INSERT INTO trigger_runtime.awake_workers VALUES ('w1', 'other_channel', clock_timestamp() + interval '1 hour')
                    """
                let otherChannel = try await inserted(awake: elsewhere)
                #expect(otherChannel == ["", "marker 5"], "awake on another channel: notify")
            }
            let captured = try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.deliveries")
            #expect(captured == 5)
        }
    }

    @Test("under a steady stream the worker declares itself awake; when the stream stops it settles without the poll")
    func steadyStreamSettles() async throws {
        let handled = Observations<Int>()
        let registry = ListenTests.registry(handled)
        let (logger, logs) = Logger.capturing()
        // Its own server: settling waits for every transaction that had an id when the declaration was withdrawn,
        // the server's whole (the other tests' too, on the shared one).
        try await RuntimeHarness.withPreparedDatabaseOnOwnServer(registry: registry, logger: logger) { client, _ in
            // The poll would take ten minutes: only notifications and paced claims can deliver within the test.
            let configuration = RuntimeHarness.configuration { $0.pollInterval = .seconds(600) }
            let total = try await RuntimeHarness.withWorker(
                client: client, registry: registry, configuration: configuration, logger: logger
            ) {
                try await logs.wait("listening") { $0.contains { $0.message == "listening" } }
                // Five rows per statement: every claim finds several, so claims get paced.
                var next = 1
                func insertFive() async throws {
                    try await client.query(
                        "INSERT INTO items (id, name, value) SELECT g, 'p', 0 FROM generate_series(\(next), \(next + 4)) g"
                    )
                    next += 5
                }
                while !logs.entries.contains(where: { $0.message == "claims paced: writers skip their NOTIFY" }) {
                    try #require(next < 100_000, "claims were never paced")
                    try await insertFive()
                }
                for _ in 0..<100 { try await insertFive() }
                let total = next - 1
                try await handled.wait("\(total) deliveries") { $0.count >= total }
                // The worker may have settled and been paced again during the stream: wait for the last word.
                try await logs.wait("settled") { entries in
                    entries.last { $0.message.hasPrefix("claims paced") || $0.message.hasPrefix("settled") }?.message
                        == "settled: writers notify again"
                }
                let declared = try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.awake_workers")
                #expect(declared == 0)
                return total
            }
            #expect(Set(handled.entries) == Set(1...total))
            #expect(handled.entries.count == total)
        }
    }

    @Test("behind a backlog (full claims) the worker declares itself awake; once caught up it settles")
    func backlogDeclaresAwake() async throws {
        let handled = Observations<Int>()
        let registry = ListenTests.registry(handled)
        let (logger, logs) = Logger.capturing()
        // Its own server: settling waits for every transaction that had an id when the declaration was withdrawn.
        try await RuntimeHarness.withPreparedDatabaseOnOwnServer(registry: registry, logger: logger) { client, _ in
            // Claims of at most 4 against a backlog of 1,000: every claim but the last comes back full. Such a worker
            // used to withdraw at every full claim, and every writer notified (and waited on the NOTIFY lock) while
            // it was behind. The poll would take ten minutes: only full and paced claims can finish in time.
            let configuration = RuntimeHarness.configuration {
                $0.pollInterval = .seconds(600)
                $0.batchSize = 4
            }
            try await RuntimeHarness.withWorker(
                client: client, registry: registry, configuration: configuration, logger: logger
            ) {
                try await logs.wait("listening") { $0.contains { $0.message == "listening" } }
                try await client.query(
                    "INSERT INTO items (id, name, value) SELECT g, 'b', 0 FROM generate_series(1, 1000) g"
                )
                try await logs.wait("declared") { $0.contains { $0.message == "claims paced: writers skip their NOTIFY" } }
                // Written while the worker is declared: no NOTIFY, found by the claims that go on anyway.
                try await client.query(
                    "INSERT INTO items (id, name, value) SELECT g, 'b', 0 FROM generate_series(1001, 1100) g"
                )
                // Under the whole suite on two cores a delivery can take 100 ms: this is not a timing test.
                try await handled.wait("1,100 deliveries", timeout: .seconds(300)) { $0.count >= 1100 }
                try await logs.wait("settled") { entries in
                    entries.last {
                        $0.message.hasPrefix("claims paced") || $0.message.hasPrefix("settled")
                    }?.message == "settled: writers notify again"
                }
                let declared = try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.awake_workers")
                #expect(declared == 0)
                let declarations = logs.entries.filter { $0.message == "claims paced: writers skip their NOTIFY" }.count
                #expect(declarations == 1, "declared once through the backlog, not at every full claim")
            }
            #expect(Set(handled.entries) == Set(1...1100))
            #expect(handled.entries.count == 1100)
        }
    }
}
