import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import TriggerRuntime

@Suite("TriggerRuntime timers", .timeLimit(.minutes(10)))
struct TimerTests {
    /// One handler run of a timer: its key, payload, attempt, due time and the database's clock at its start.
    struct Fired: Sendable {
        var document: String
        var key: String
        var payload: String
        var attempt: Int
        var dueAt: Date
        var startedAt: Date
        var context: FunctionContext
    }

    static func registry(
        _ fired: Observations<Fired>,
        options: FunctionOptions = FunctionOptions(),
        fail: @escaping @Sendable (Fired) -> Bool = { _ in false }
    ) -> FunctionRegistry {
        var registry = FunctionRegistry()
        registry.registerTimer("ring", options: options, as: String.self) { timer, context in
            var startedAt = Date.distantPast
            let rows = try await #require(context.transaction).query("SELECT clock_timestamp()", logger: context.logger)
            for try await value in rows.decode(Date.self) { startedAt = value }
            let entry = Fired(
                document: timer.documentKey, key: timer.key, payload: timer.payload, attempt: context.attempt,
                dueAt: timer.dueAt, startedAt: startedAt, context: context)
            fired.append(entry)
            struct Refused: Error, CustomStringConvertible { var description: String { "not yet" } }
            if fail(entry) { throw Refused() }
        }
        return registry
    }

    /// Schedules `ring` in a transaction of its own.
    @discardableResult
    static func schedule(
        _ client: PostgresClient, document: String = "d", key: String, due: TimerDue, payload: String,
        ifExists: TimerConflict = .replace, logger: Logger
    ) async throws -> Bool {
        try await client.withTransaction(logger: logger) { connection in
            try await PostgresTimers(logger: logger).schedule(
                "ring", document: document, key: key, due: due, payload: Data("\"\(payload)\"".utf8),
                ifExists: ifExists, on: connection)
        }
    }

    /// What `body` threw; for a failed `withTransaction`, what its closure threw.
    static func failure(_ body: () async throws -> Void) async -> (any Error)? {
        do {
            try await body()
            return nil
        } catch let error as PostgresTransactionError {
            return error.closureError ?? error
        } catch {
            return error
        }
    }

    static func count(_ client: PostgresClient, _ table: String) async throws -> Int {
        try await RuntimeHarness.count(client, PostgresQuery(unsafeSQL: "SELECT count(*) FROM trigger_runtime.\(table)"))
    }

    @Test("a timer is not promoted before its due time; the worker runs it at or after it, as a timer, once")
    func firesAtDueTimeNotBefore() async throws {
        let fired = Observations<Fired>()
        let registry = Self.registry(fired)
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await Self.schedule(client, key: "k", due: .after(.milliseconds(1500)), payload: "hello", logger: logger)
            // The promotion's boundary, without waiting: as of a microsecond before the due time nothing moves.
            let early = try await RuntimeHarness.count(
                client,
                """
                SELECT trigger_runtime.promote_timers(ARRAY['ring'], 100,
                    (SELECT due_at FROM trigger_runtime.timers) - interval '1 microsecond')
                """)
            #expect(early == 0)
            #expect(try await Self.count(client, "timers") == 1)
            #expect(try await Self.count(client, "deliveries") == 0)
            let dueAt = try await RuntimeHarness.count(
                client, "SELECT (extract(epoch FROM due_at) * 1000000)::int8 FROM trigger_runtime.timers")

            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await fired.wait("the timer to fire") { !$0.isEmpty }
            }
            let run = try #require(fired.entries.first)
            #expect(fired.entries.count == 1)
            #expect(run.startedAt >= run.dueAt)
            #expect(abs(run.dueAt.timeIntervalSince1970 * 1_000_000 - Double(dueAt)) < 2)
            #expect(run.payload == "hello")
            #expect(run.context.operation == .timer)
            #expect(run.context.timer == TimerInfo(key: "k", dueAt: run.dueAt))
            #expect(run.context.commitTime == run.dueAt)
            #expect(try await Self.count(client, "timers") == 0)
            #expect(try await Self.count(client, "deliveries") == 0)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.done WHERE operation = 'timer'") == 1)
        }
    }

    @Test("a sleeping worker (60 s poll) wakes for a timer scheduled after it went to sleep")
    func sleepingWorkerWakes() async throws {
        let fired = Observations<Fired>()
        let registry = Self.registry(fired)
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            let configuration = RuntimeHarness.configuration { $0.pollInterval = .seconds(60) }
            try await RuntimeHarness.withWorker(client: client, registry: registry, configuration: configuration, logger: logger) {
                try await Self.schedule(client, key: "soon", due: .after(.milliseconds(300)), payload: "x", logger: logger)
                try await fired.wait("the timer to fire well before the next poll", timeout: .seconds(20)) { !$0.isEmpty }
            }
            #expect(fired.entries.map(\.key) == ["soon"])
        }
    }

    @Test("scheduling in a transaction that rolls back schedules nothing")
    func rolledBack() async throws {
        struct Abort: Error {}
        let fired = Observations<Fired>()
        let registry = Self.registry(fired)
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            let error = await Self.failure {
                _ = try await client.withTransaction(logger: logger) { connection in
                    try await PostgresTimers(logger: logger).schedule(
                        "ring", document: "d", key: "rolled-back", due: .after(.zero), payload: Data("\"no\"".utf8),
                        ifExists: .replace, on: connection)
                    throw Abort()
                }
            }
            #expect(error is Abort)
            #expect(try await Self.count(client, "timers") == 0)
            // A later timer of the same document fires: had the first been written, it would have fired before it.
            try await Self.schedule(client, key: "control", due: .after(.milliseconds(200)), payload: "yes", logger: logger)
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await fired.wait("the control timer") { !$0.isEmpty }
            }
            #expect(fired.entries.map(\.key) == ["control"])
        }
    }

    @Test("replace and keep by key, also for a due timer not yet claimed; cancel removes pending and due timers")
    func replaceKeepCancel() async throws {
        let fired = Observations<Fired>()
        let registry = Self.registry(fired)
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            let far = Date().addingTimeInterval(3600)
            #expect(try await Self.schedule(client, key: "a", due: .at(far), payload: "a1", logger: logger))
            #expect(try await Self.schedule(client, key: "a", due: .after(.zero), payload: "a2", ifExists: .replace, logger: logger))
            #expect(try await Self.schedule(client, key: "a", due: .at(far), payload: "a3", ifExists: .keep, logger: logger) == false)
            #expect(try await Self.schedule(client, key: "b", due: .after(.zero), payload: "b1", logger: logger))
            #expect(try await Self.count(client, "timers") == 2)
            // Promote both (what a claim does) without a worker: due, not yet claimed.
            #expect(try await RuntimeHarness.count(client, "SELECT trigger_runtime.promote_timers(ARRAY['ring'], 100, now())") == 2)
            #expect(try await Self.count(client, "timers") == 0)
            #expect(try await Self.schedule(client, key: "a", due: .at(far), payload: "a4", ifExists: .keep, logger: logger) == false)
            #expect(try await Self.schedule(client, key: "b", due: .after(.zero), payload: "b2", ifExists: .replace, logger: logger))
            #expect(try await Self.count(client, "timers") == 1)
            #expect(try await Self.count(client, "deliveries") == 1)

            let cancelled = try await client.withTransaction(logger: logger) { connection in
                let timers = PostgresTimers(logger: logger)
                let c = try await timers.cancel("ring", document: "d", key: "c", on: connection)  // never scheduled
                let a = try await timers.cancel("ring", document: "d", key: "a", on: connection)  // due, promoted
                return (c, a)
            }
            #expect(cancelled.0 == false)
            #expect(cancelled.1 == true)
            #expect(try await Self.count(client, "deliveries") == 0)
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await fired.wait("b") { !$0.isEmpty }
            }
            #expect(fired.entries.map(\.payload) == ["b2"])

            let missing = await Self.failure {
                _ = try await client.withTransaction(logger: logger) { connection in
                    try await PostgresTimers(logger: logger).schedule(
                        "nobody", document: "d", key: "k", due: .after(.zero), payload: nil, ifExists: .replace,
                        on: connection)
                }
            }
            #expect((missing as? TriggerRuntimeError)?.code == .functionNotRegistered)
            let noTransaction = await #expect(throws: TriggerRuntimeError.self) {
                try await PostgresTimers(logger: logger).cancel("ring", document: "d", key: "k", on: nil)
            }
            #expect(noTransaction?.code == .noTransaction)
        }
    }

    @Test("a document's timers run in due order, one at a time: a failing one holds back the later ones until it succeeds")
    func orderedWithRetry() async throws {
        let fired = Observations<Fired>()
        let options = FunctionOptions(maxAttempts: 5, initialBackoff: .milliseconds(100), jitter: 0)
        let registry = Self.registry(fired, options: options) { $0.key == "1" && $0.attempt < 3 }
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            let base = Date().addingTimeInterval(-10)
            for key in ["3", "1", "2"] {
                try await Self.schedule(
                    client, key: key, due: .at(base.addingTimeInterval(Double(key)!)), payload: key, logger: logger)
            }
            try await Self.schedule(client, document: "other", key: "x", due: .at(base), payload: "x", logger: logger)
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await fired.wait("all timers") { $0.filter { $0.document == "d" }.count >= 5 }
            }
            let runs = fired.entries.filter { $0.document == "d" }
            #expect(runs.map(\.key) == ["1", "1", "1", "2", "3"])
            #expect(runs.map(\.attempt) == [1, 2, 3, 1, 1])
            #expect(fired.entries.filter { $0.document == "other" }.count == 1)
        }
    }

    @Test("a timer that keeps failing is dead-lettered like a delivery, and events retry replays it")
    func deadLetterAndReplay() async throws {
        let fired = Observations<Fired>()
        let healthy = Mutex(false)
        let options = FunctionOptions(maxAttempts: 2, initialBackoff: .milliseconds(50), jitter: 0)
        let registry = Self.registry(fired, options: options) { _ in !healthy.withLock { $0 } }
        let (logger, logs) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            let admin = DeliveryAdmin(client: client, logger: logger)
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await Self.schedule(client, key: "doomed", due: .after(.zero), payload: "p", logger: logger)
                try await logs.wait("dead letter") { $0.contains { $0.metadata["trigger.outcome"] == "dead" } }
                let dead = try await admin.list(dead: true)
                #expect(dead.map(\.operation) == [.timer])
                #expect(dead.first?.attempt == 2)
                #expect(dead.first?.lastError == "not yet")
                healthy.withLock { $0 = true }
                try await admin.retry(try #require(dead.first).id)
                try await fired.wait("the replay") { $0.count >= 3 }
            }
            #expect(fired.entries.map(\.attempt) == [1, 2, 1])
            #expect(fired.entries.last?.context.timer?.key == "doomed")
            #expect(try await Self.count(client, "deliveries") == 0)
        }
    }

    @Test("100,000 timers not yet due cost the claim one index probe: no sequential scan, nothing promoted")
    func claimIgnoresFutureTimers() async throws {
        let fired = Observations<Fired>()
        let registry = Self.registry(fired)
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query("ANALYZE trigger_runtime.timers")  // empty statistics, as a fresh deployment has
            try await client.query(
                """
                INSERT INTO trigger_runtime.timers (function_name, document_key, timer_key, due_at)
                SELECT 'ring', 'doc-' || g, 'k', now() + interval '1 hour' + g * interval '1 second'
                FROM generate_series(1, 100000) g
                """)
            let scans = try await client.withConnection { connection in
                // The connection's scans before the claim, subtracted: PostgreSQL 15 keeps a backend's counts
                // pending for up to a second after its transactions end, and this view shows them (the pooled
                // connection's earlier statements on `timers` showed here when the test ran alone, fast).
                func scans() async throws -> (sequential: Int64, index: Int64) {
                    let stats = try await connection.query(
                        """
                        SELECT coalesce(seq_scan, 0), coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables
                        WHERE relid = 'trigger_runtime.timers'::regclass
                        """,
                        logger: logger)
                    var result: (sequential: Int64, index: Int64) = (0, 0)
                    for try await (sequential, index) in stats.decode((Int64, Int64).self) {
                        result = (sequential, index)
                    }
                    return result
                }
                try await connection.query("BEGIN", logger: logger)
                let before = try await scans()
                let claimed = try await connection.query(
                    "SELECT count(*)::int8 FROM trigger_runtime.claim(ARRAY['ring'], 32, 'probe', 30)", logger: logger)
                var count: Int64 = -1
                for try await value in claimed.decode(Int64.self) { count = value }
                let after = try await scans()
                try await connection.query("ROLLBACK", logger: logger)
                return (
                    claimed: count, sequential: after.sequential - before.sequential, index: after.index - before.index
                )
            }
            #expect(scans.claimed == 0)
            #expect(scans.sequential == 0)
            #expect(scans.index >= 1)
            #expect(try await Self.count(client, "timers") == 100_000)
        }
    }

    @Test("a due timer is promoted by a claim that other deliveries fill (migration 0009)")
    func promotedUnderBacklog() async throws {
        let fired = Observations<Fired>()
        var registry = Self.registry(fired)
        registry.register("bulk", on: .create("items"), as: Item.self) { _, _ in }
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query(
                "INSERT INTO items (id, name, value) SELECT g, 'x', 0 FROM generate_series(1, 100) g")
            try await client.query(
                """
                INSERT INTO trigger_runtime.timers (function_name, document_key, timer_key, due_at)
                VALUES ('ring', 'window', 'k', now() - interval '1 minute')
                """)
            // A claim of 8 with 100 deliveries due: full without the timer. Before 0009 the timer waited for a claim
            // that came back short, which a backlog that never shrinks never gives (the 16th session's 10-minute
            // run: no dispatch window fired).
            let claimed = try await client.withConnection { connection in
                let rows = try await connection.query(
                    "SELECT function_name FROM trigger_runtime.claim(ARRAY['bulk', 'ring'], 8, 'probe', 30)",
                    logger: logger)
                var names: [String] = []
                for try await name in rows.decode(String.self) { names.append(name) }
                return names
            }
            #expect(claimed.count == 8)
            #expect(try await Self.count(client, "timers") == 0, "the due timer became a delivery")
            #expect(try await RuntimeHarness.count(
                client, "SELECT count(*) FROM trigger_runtime.deliveries WHERE function_name = 'ring' AND status = 'ready'") == 1)
        }
    }

    @Test("two workers promote and run 600 due timers (4 per document): each exactly once")
    func exactlyOnceAcrossWorkers() async throws {
        let fired = Observations<Fired>()
        let registry = Self.registry(fired)
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query(
                """
                INSERT INTO trigger_runtime.timers (function_name, document_key, timer_key, due_at, payload)
                SELECT 'ring', 'doc-' || (g % 150), 'k' || g, now() - interval '1 second', to_jsonb(g::text)
                FROM generate_series(1, 600) g
                """)
            let configurations = ["a", "b"].map { name in
                RuntimeHarness.configuration {
                    $0.batchSize = 16
                    $0.workerID = "timer-worker-\(name)"
                }
            }
            try await RuntimeHarness.withWorkers(
                client: client, registry: registry, configurations: configurations, logger: logger
            ) {
                // Generous: the test is about each timer running once, not speed; in a fresh-clone CI run with the
                // whole suite on 2 cores, 572 of 600 had run after 120 s (alone it takes a few seconds).
                try await fired.wait("600 timers", timeout: .seconds(240)) { $0.count >= 600 }
            }
            let payloads = fired.entries.map(\.payload)
            #expect(payloads.count == 600)
            #expect(Set(payloads).count == 600)
            #expect(try await Self.count(client, "timers") == 0)
            #expect(try await Self.count(client, "deliveries") == 0)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.done") == 600)
        }
    }

    @Test("an application's own statement sets a timer with its rows (schedule_timer): keep keeps, replace moves, an unregistered function fails the statement")
    func scheduledInTheApplicationsStatement() async throws {
        let fired = Observations<Fired>()
        let (logger, _) = Logger.capturing()
        let registry = Self.registry(fired)
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query("CREATE TABLE notes (id int PRIMARY KEY)", logger: logger)
            let channel = TriggerRuntime.Configuration.defaultChannel
            /// Inserts note `id` and sets `function`'s timer of document `id` in the same statement (no transaction).
            func note(_ id: Int, _ function: String, replace: Bool, payload: String, dueIn seconds: Double) async throws
                -> Bool
            {
                let rows = try await client.query(
                    """
                    WITH n AS (INSERT INTO notes VALUES (\(id)) ON CONFLICT (id) DO UPDATE SET id = excluded.id
                               RETURNING id)
                    SELECT \(unescaped: PostgresTimers.scheduleFunction)(
                        \(function), n.id::text, 'k', \(replace), now() + make_interval(secs => \(seconds)),
                        to_jsonb(\(payload)::text), \(channel))
                    FROM n
                    """,
                    logger: logger
                )
                return try await rows.collect().first.map { try $0.decode(Bool.self) } ?? false
            }
            #expect(try await note(1, "ring", replace: false, payload: "a", dueIn: 60))
            #expect(try await note(1, "ring", replace: false, payload: "b", dueIn: 0) == false)  // kept
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.timers WHERE payload = '\"a\"'") == 1)
            #expect(try await note(1, "ring", replace: true, payload: "c", dueIn: 0))  // moved to now
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await fired.wait("c") { !$0.isEmpty }
            }
            #expect(fired.entries.map(\.payload) == ["c"])
            #expect(fired.entries.map(\.document) == ["1"])

            let refused = await Self.failure { _ = try await note(2, "nobody", replace: true, payload: "x", dueIn: 0) }
            #expect((PostgresTimers.runtimeError(try #require(refused)) as? TriggerRuntimeError)?.code == .functionNotRegistered)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM notes WHERE id = 2") == 0)
            #expect(try await Self.count(client, "timers") == 0)
        }
    }

    @Test("scheduling and cancelling are statements prepared once per connection, planned generic after the first few")
    func statementsArePreparedAndGeneric() async throws {
        let fired = Observations<Fired>()
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: Self.registry(fired), logger: logger) { client, _ in
            let timers = PostgresTimers(logger: logger)
            let plans = try await client.withConnection { connection in
                for round in 0..<12 {
                    // Both forms of due time: the statement's `NULL` instant or delay must not change its plan.
                    let due: TimerDue = round.isMultiple(of: 2) ? .after(.seconds(60)) : .at(Date() + 60)
                    let written = try await timers.schedule(
                        "ring", document: "d\(round)", key: "k", due: due, payload: nil, ifExists: .keep,
                        on: connection
                    )
                    #expect(written)
                    #expect(try await timers.cancel("ring", document: "d\(round)", key: "k", on: connection))
                }
                let rows = try await connection.query(
                    """
                    SELECT name, generic_plans, custom_plans FROM pg_prepared_statements
                    WHERE name LIKE 'trigger_runtime_timer_%' ORDER BY name
                    """,
                    logger: logger
                )
                var plans: [String: (generic: Int64, custom: Int64)] = [:]
                for try await (name, generic, custom) in rows.decode((String, Int64, Int64).self) {
                    plans[name] = (generic, custom)
                }
                return plans
            }
            #expect(plans.keys.sorted() == ["trigger_runtime_timer_cancel_v1", "trigger_runtime_timer_schedule_v3"])
            for (name, plan) in plans {
                // PostgreSQL plans the first five executions for their values, then keeps a generic plan if it
                // costs no more: a statement planned anew at every call would show 12 custom plans.
                #expect(plan.custom <= 5 && plan.generic >= 7, "\(name): \(plan)")
            }
            #expect(try await Self.count(client, "timers") == 0)
        }
    }
}
