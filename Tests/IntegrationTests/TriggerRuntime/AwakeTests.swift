import Foundation
import Logging
import PostgresNIO
import Synchronization
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

    @Test("scheduling a timer skips its NOTIFY only for an unexpired declaration on its channel, in READ COMMITTED")
    func timerSkipsNotify() async throws {
        let registry = TimerTests.registry(Observations<TimerTests.Fired>())
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await Self.withListener(client: client) { payloads in
                var step = 0
                func scheduled(isolation: String? = nil, awake: String?) async throws -> [String] {
                    step += 1
                    try await client.query("DELETE FROM trigger_runtime.awake_workers")
                    if let awake {
                        try await client.query(
                            PostgresQuery(
                                unsafeSQL: """
                                    INSERT INTO trigger_runtime.awake_workers VALUES ('w1', \(awake))
                                    """))
                    }
                    return try await Self.notified(
                        by: {
                            try await client.withConnection { connection in
                                try await connection.query(
                                    PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation ?? "READ COMMITTED")"),
                                    logger: logger)
                                try await PostgresTimers(logger: logger).schedule(
                                    "ring", document: "d\(step)", key: "k", due: .after(.seconds(3600)),
                                    payload: Data("\"x\"".utf8), ifExists: .replace, on: connection)
                                try await connection.query("COMMIT", logger: logger)
                            }
                        }, client: client, payloads: payloads
                    ).payloads
                }
                let here = "'trigger_runtime', clock_timestamp() + interval '1 hour'"
                let asleep = try await scheduled(awake: nil)
                #expect(asleep == [""], "no worker awake: notify")
                let awake = try await scheduled(awake: here)
                #expect(awake == [], "a worker awake: skip")
                let repeatableRead = try await scheduled(isolation: "REPEATABLE READ", awake: here)
                #expect(repeatableRead == [""], "a snapshot older than the check could miss a withdrawal: notify")
                let expired = try await scheduled(awake: "'trigger_runtime', clock_timestamp() - interval '1 second'")
                #expect(expired == [""], "an expired declaration: notify")
                let elsewhere = try await scheduled(awake: "'other_channel', clock_timestamp() + interval '1 hour'")
                #expect(elsewhere == [""], "awake on another channel: notify")
            }
            let timers = try await TimerTests.count(client, "timers")
            #expect(timers == 5)
        }
    }

    @Test(
        "a timer scheduled while the worker is awake (no NOTIFY) fires when due, during the stream and after it settled"
    )
    func awakeWorkerRunsTimersScheduledWithoutNotify() async throws {
        let handled = Observations<Int>()
        let fired = Observations<String>()
        var functions = ListenTests.registry(handled)
        functions.registerTimer("ring", as: String.self) { timer, _ in fired.append(timer.key) }
        let registry = functions
        let (logger, logs) = Logger.capturing()
        // Its own server, as the settling test's: settling waits for the whole server's transactions.
        try await RuntimeHarness.withPreparedDatabaseOnOwnServer(registry: registry, logger: logger) { client, _ in
            // Nothing but paced claims and the settled worker's look-ahead can fire the timers within the test.
            let configuration = RuntimeHarness.configuration { $0.pollInterval = .seconds(600) }
            try await RuntimeHarness.withWorker(
                client: client, registry: registry, configuration: configuration, logger: logger
            ) {
                try await logs.wait("listening") { $0.contains { $0.message == "listening" } }
                let stream = FiveRowStream(client: client)
                try await stream.untilPaced(logs)
                // Scheduled only while the declaration stands (checked in the same transaction, just before): no
                // NOTIFY is sent. `false`: none stood, nothing scheduled.
                func scheduleWhileAwake(key: String, due: Duration) async throws -> Bool {
                    try await client.withTransaction(logger: logger) { connection in
                        let awake = try await connection.query(
                            "SELECT count(*)::int8 FROM trigger_runtime.awake_workers WHERE until > clock_timestamp()",
                            logger: logger
                        ).collect().first?.decode(Int64.self) ?? 0
                        guard awake > 0 else { return false }
                        try await PostgresTimers(logger: logger).schedule(
                            "ring", document: "t", key: key, due: .after(due), payload: Data("\"x\"".utf8),
                            ifExists: .replace, on: connection)
                        return true
                    }
                }
                var during = try await scheduleWhileAwake(key: "during", due: .milliseconds(50))
                while !during {
                    // The declaration lapsed between two claims: pace again and retry.
                    for _ in 0..<20 { try await stream.insert() }
                    during = try await scheduleWhileAwake(key: "during", due: .milliseconds(50))
                }
                for _ in 0..<20 { try await stream.insert() }
                try await fired.wait("the timer due during the stream") { $0.contains("during") }
                var after = try await scheduleWhileAwake(key: "after", due: .seconds(5))
                while !after {
                    for _ in 0..<20 { try await stream.insert() }
                    after = try await scheduleWhileAwake(key: "after", due: .seconds(5))
                }
                // The stream stops: the worker settles, then only its look-ahead can wake it for this timer.
                try await logs.wait("the worker to settle", timeout: .seconds(60)) { entries in
                    entries.last { $0.message.hasPrefix("claims paced") || $0.message.hasPrefix("settled") }?.message
                        == "settled: writers notify again"
                }
                try await fired.wait("the timer due after the stream, long before the poll", timeout: .seconds(60)) {
                    $0.contains("after")
                }
            }
            #expect(fired.entries.sorted() == ["after", "during"])
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
                let stream = FiveRowStream(client: client)
                try await stream.untilPaced(logs)
                for _ in 0..<100 { try await stream.insert() }
                let total = stream.written
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

/// Items written five per statement (every claim finds several, so claims get paced), numbered from 1.
final class FiveRowStream: Sendable {
    let client: PostgresClient
    private let next = Mutex(1)

    init(client: PostgresClient) {
        self.client = client
    }

    /// How many items were written.
    var written: Int { self.next.withLock { $0 } - 1 }

    func insert() async throws {
        let first = self.next.withLock { next in
            defer { next += 5 }
            return next
        }
        try await self.client.query(
            "INSERT INTO items (id, name, value) SELECT g, 'p', 0 FROM generate_series(\(first), \(first + 4)) g"
        )
    }

    /// Writes until the worker logs that its claims are paced.
    func untilPaced(_ logs: Observations<LogEntry>) async throws {
        while !logs.entries.contains(where: { $0.message == "claims paced: writers skip their NOTIFY" }) {
            try #require(self.written < 100_000, "claims were never paced")
            try await self.insert()
        }
    }
}
