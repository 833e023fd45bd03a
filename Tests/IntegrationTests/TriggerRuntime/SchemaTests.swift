import EmbeddedPostgres
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

@Suite("TriggerRuntime migrations, trigger installation and the claim plan", .timeLimit(.minutes(10)))
struct SchemaTests {
    static let app = [
        Migration(group: "app", name: "0001_items", statements: [RuntimeHarness.itemsTable]),
        Migration(group: "app", name: "0002_index", statements: ["CREATE INDEX items_name_idx ON items (name)"]),
    ]

    @Test("migrations apply once, in one transaction, under a lock; dry runs report; divergent history is refused")
    func migrator() async throws {
        let (logger, _) = Logger.capturing()
        try await TestDatabase.shared.withDatabase { client, _ in
            let migrator = Migrator(client: client, logger: logger)
            let all = TriggerRuntime.migrations + Self.app
            let dry = try await migrator.migrate(all, dryRun: true)
            #expect(dry.pending == all)
            #expect(dry.applied == false)
            #expect(try await migrator.history().isEmpty)

            // Two workers starting together: the advisory lock serialises them, the second finds nothing to do.
            let reports = try await withThrowingTaskGroup(of: Migrator.Report.self) { group in
                for _ in 0..<2 { group.addTask { try await migrator.migrate(all) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(reports.map(\.pending.count).sorted() == [0, all.count])
            #expect(try await migrator.history().count == all.count)
            #expect(try await migrator.migrate(all, dryRun: true).pending.isEmpty)

            let renamed = TriggerRuntime.migrations + [Self.app[0], Migration(group: "app", name: "0002_other", statements: ["SELECT 1"])]
            let divergent = await #expect(throws: TriggerRuntimeError.self) { try await migrator.migrate(renamed) }
            #expect(divergent?.code == .divergentHistory)
            let removed = TriggerRuntime.migrations + [Self.app[0]]
            let shorter = await #expect(throws: TriggerRuntimeError.self) { try await migrator.migrate(removed) }
            #expect(shorter?.code == .divergentHistory)

            // A failing migration rolls back everything of its run, including the ones before it.
            let broken = all + [
                Migration(group: "app", name: "0003_ok", statements: ["CREATE TABLE extra (id int)"]),
                Migration(group: "app", name: "0004_broken", statements: ["CREATE TABLE nope (id no_such_type)"]),
            ]
            await #expect(throws: (any Error).self) { try await migrator.migrate(broken) }
            #expect(try await migrator.history().count == all.count)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM pg_class WHERE relname = 'extra'") == 0)

            let duplicate = await #expect(throws: TriggerRuntimeError.self) {
                try await migrator.migrate(all + [Self.app[1]])
            }
            #expect(duplicate?.code == .invalidMigrations)
        }
    }

    @Test("trigger installation is idempotent, refuses bad registrations, and drops stale bindings")
    func installer() async throws {
        let (logger, _) = Logger.capturing()
        try await TestDatabase.shared.withDatabase { client, _ in
            try await Migrator(client: client, logger: logger).migrate(TriggerRuntime.migrations + Self.app)
            try await client.query("CREATE TABLE notes (id int PRIMARY KEY, body text)")
            let installer = TriggerInstaller(client: client, logger: logger)
            var registry = FunctionRegistry()
            registry.register("a", on: .write("items"), as: Item.self) { _, _ in }
            registry.register("b", on: .create("notes"), as: Item.self) { _, _ in }
            try await installer.install(registry)
            try await installer.install(registry)
            let triggers = "SELECT count(*) FROM pg_trigger WHERE tgname = 'trigger_runtime_capture'"
            #expect(try await RuntimeHarness.count(client, PostgresQuery(unsafeSQL: triggers)) == 2)
            // Each trigger fires on what its table's functions react to: notes' updates and deletes cost nothing.
            let definitions = try await client.query(
                """
                SELECT c.relname::text, pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                WHERE t.tgname = 'trigger_runtime_capture' ORDER BY 1
                """
            )
            var fired: [String: String] = [:]
            for try await (table, definition) in definitions.decode((String, String).self) {
                fired[table] = definition.contains("AFTER INSERT ON") ? "insert" : definition
            }
            #expect(fired["notes"] == "insert")
            #expect(fired["items"]?.contains("AFTER INSERT OR DELETE OR UPDATE ON") == true)

            // Bad registrations are refused and change nothing.
            for (trigger, what) in [
                (Trigger.create("missing_table"), "missing table"), (Trigger.create("items", keyColumn: "nope"), "key"),
                (Trigger.update("items", columns: ["value", "nope"]), "filter column"),
                (Trigger.create("items").matching("$.value >>> 3"), "row filter that is not a SQL/JSON path"),
                (Trigger.create("items").matching("nope", in: ["x"]), "value filter column"),
            ] {
                var bad = registry
                bad.register("bad", on: trigger, as: Item.self) { _, _ in }
                let error = await #expect(throws: TriggerRuntimeError.self, "\(what)") { try await installer.install(bad) }
                #expect(error?.code == .invalidRegistration)
            }
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.functions") == 2)

            // Removing "b" stops its capture and drops the now unused trigger on notes.
            var smaller = FunctionRegistry()
            smaller.register("a", on: .write("items"), as: Item.self) { _, _ in }
            try await installer.install(smaller)
            #expect(try await RuntimeHarness.count(client, PostgresQuery(unsafeSQL: triggers)) == 1)
            try await client.query("INSERT INTO notes VALUES (1, 'n')")
            try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'i', 0)")
            let rows = try await client.query("SELECT function_name FROM trigger_runtime.deliveries")
            var functions: [String] = []
            for try await name in rows.decode(String.self) { functions.append(name) }
            #expect(functions == ["a"])
        }
    }

    @Test("deliveries waiting for a function that is removed from the registry are dead-lettered, and replay later")
    func removedFunction() async throws {
        let (logger, logs) = Logger.capturing()
        try await TestDatabase.shared.withDatabase { client, _ in
            try await Migrator(client: client, logger: logger).migrate(TriggerRuntime.migrations + Self.app)
            let installer = TriggerInstaller(client: client, logger: logger)
            var both = FunctionRegistry()
            both.register("kept", on: .create("items"), as: Item.self) { _, _ in }
            both.register("removed", on: .create("items"), as: Item.self) { _, _ in }
            try await installer.install(both)
            for id in 1...3 { try await client.query("INSERT INTO items (id, name, value) VALUES (\(id), 'i', 0)") }
            // One of "removed"'s deliveries is held by a live lease (a worker of the older release still runs it).
            try await client.query(
                """
                UPDATE trigger_runtime.deliveries SET lease_token = gen_random_uuid(), lease_owner = 'old',
                    run_after = now() + interval '1 hour'
                WHERE id = (SELECT min(id) FROM trigger_runtime.deliveries WHERE function_name = 'removed')
                """
            )

            var kept = FunctionRegistry()
            kept.register("kept", on: .create("items"), as: Item.self) { _, _ in }
            try await installer.install(kept)
            let states = try await client.query(
                """
                SELECT function_name, status, coalesce(last_error, '') FROM trigger_runtime.deliveries
                ORDER BY function_name, id
                """
            )
            var seen: [String] = []
            for try await (function, status, error) in states.decode((String, String, String).self) {
                seen.append("\(function) \(status)")
                if status == "dead" { #expect(error.contains("function removed is no longer registered")) }
            }
            #expect(seen == ["kept ready", "kept ready", "kept ready", "removed ready", "removed dead", "removed dead"])
            #expect(logs.entries.contains { $0.metadata["trigger.deliveries"] == "2" && $0.level == .warning })

            // Registered again, the dead ones replay.
            try await installer.install(both)
            let admin = DeliveryAdmin(client: client, logger: logger)
            #expect(try await admin.retryAllDead() == 2)
            #expect(
                try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.deliveries WHERE status = 'dead'")
                    == 0
            )
        }
    }

    @Test("the claim stays on its index when the queue starts empty and grows to 100,000 rows")
    func claimPlanGuard() async throws {
        let (logger, _) = Logger.capturing()
        var registry = FunctionRegistry()
        registry.register("f", on: .create("items"), as: Item.self) { _, _ in }
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            // Empty statistics, as a fresh deployment has them.
            try await client.query("ANALYZE trigger_runtime.deliveries")
            func claimScans() async throws -> (sequential: Int64, index: Int64, claimed: Int, fetched: Int64) {
                try await client.withConnection { connection in
                    // Read before and after the claim: the transaction's counters also hold the session's earlier
                    // counts until PostgreSQL flushes them (at most once a second), the empty round's among them.
                    func counters() async throws -> (Int64, Int64, Int64) {
                        let stats = try await connection.query(
                            """
                            SELECT coalesce(seq_scan, 0), coalesce(idx_scan, 0), coalesce(idx_tup_fetch, 0)
                            FROM pg_stat_xact_user_tables WHERE relid = 'trigger_runtime.deliveries'::regclass
                            """,
                            logger: logger
                        )
                        var result: (Int64, Int64, Int64) = (0, 0, 0)
                        for try await row in stats.decode((Int64, Int64, Int64).self) { result = row }
                        return result
                    }
                    try await connection.query("BEGIN", logger: logger)
                    let before = try await counters()
                    let claimed = try await connection.query(
                        "SELECT count(*)::int8 FROM trigger_runtime.claim(ARRAY['f'], 32, 'probe', 30)", logger: logger
                    )
                    var count: Int64 = 0
                    for try await value in claimed.decode(Int64.self) { count = value }
                    let after = try await counters()
                    try await connection.query("ROLLBACK", logger: logger)
                    return (after.0 - before.0, after.1 - before.1, Int(count), after.2 - before.2)
                }
            }
            // On the empty table any plan is cheap (the planner may scan it); what matters is that the plan cannot
            // stay that way as the table grows under the same "empty" statistics.
            let empty = try await claimScans()
            #expect(empty.claimed == 0)
            try await client.query(
                "INSERT INTO items (id, name, value) SELECT g, 'x', 0 FROM generate_series(1, 100000) g"
            )
            let full = try await claimScans()
            #expect(full.sequential == 0)
            #expect(full.index > 0)
            #expect(full.claimed == 32)
            // Each candidate's check for an earlier delivery of its chain probes its own (function, document) range
            // (migration 0009): planned as an anti-join on these statistics it read every ready delivery of the
            // function once per candidate.
            #expect(full.fetched < 1_000, "rows the claim fetched through indexes: \(full.fetched)")
        }
    }
    @Test("the completion and the timers' promotion stay on their indexes when their tables start empty and grow (0013)")
    func completionAndPromotionPlanGuard() async throws {
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: FunctionRegistry(), logger: logger) { client, _ in
            // Empty statistics, as a fresh deployment or a drained queue has them.
            try await client.query("ANALYZE trigger_runtime.deliveries")
            try await client.query("ANALYZE trigger_runtime.timers")
            // One connection throughout: the functions' plans are cached per connection, so the second round runs
            // the plans the first made on the empty tables.
            try await client.withConnection { connection in
                // The transaction's counters also hold the session's earlier counts until PostgreSQL flushes them (at
                // most once a second), so each round reads them before and after its calls.
                func counters() async throws -> [String: (sequential: Int64, fetched: Int64)] {
                    let stats = try await connection.query(
                        """
                        SELECT relname::text, seq_scan, coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables
                        WHERE schemaname = 'trigger_runtime' AND relname IN ('deliveries', 'timers')
                        """,
                        logger: logger
                    )
                    var tables: [String: (Int64, Int64)] = [:]
                    for try await (name, sequential, fetched) in stats.decode((String, Int64, Int64).self) {
                        tables[name] = (sequential, fetched)
                    }
                    return tables
                }
                func scans() async throws -> (promoted: Int, tables: [String: (sequential: Int64, fetched: Int64)]) {
                    try await connection.query("BEGIN", logger: logger)
                    let before = try await counters()
                    try await connection.query(
                        """
                        SELECT count(*) FROM trigger_runtime.mark_done(
                            ARRAY[1, 2, 3]::int8[], ARRAY[gen_random_uuid(), gen_random_uuid(), gen_random_uuid()])
                        """,
                        logger: logger
                    )
                    var promoted = -1
                    let promotion = try await connection.query(
                        "SELECT trigger_runtime.promote_timers(ARRAY['t'], 10, now())", logger: logger
                    )
                    for try await value in promotion.decode(Int.self) { promoted = value }
                    let after = try await counters()
                    try await connection.query("ROLLBACK", logger: logger)
                    var tables: [String: (sequential: Int64, fetched: Int64)] = [:]
                    for (name, counts) in after {
                        let start = before[name] ?? (0, 0)
                        tables[name] = (counts.sequential - start.sequential, counts.fetched - start.fetched)
                    }
                    return (promoted, tables)
                }
                let empty = try await scans()
                #expect(empty.promoted == 0)
                try await client.query(
                    """
                    INSERT INTO trigger_runtime.deliveries (function_name, table_name, operation, document_key)
                    SELECT 'f', 'items', 'create', g::text FROM generate_series(1, 50000) g
                    """
                )
                // Ten timers due, the rest an hour away.
                try await client.query(
                    """
                    INSERT INTO trigger_runtime.timers (function_name, document_key, timer_key, due_at)
                    SELECT 't', g::text, 'k', now() + CASE WHEN g <= 10 THEN -interval '1 hour' ELSE interval '1 hour' END
                    FROM generate_series(1, 50000) g
                    """
                )
                let full = try await scans()
                #expect(full.promoted == 10)
                // Before 0013: a sequential scan of `deliveries` for three ids; of `timers` twice, or its whole primary
                // key as the outer side of the promotion's delete.
                for table in ["deliveries", "timers"] {
                    let scans = try #require(full.tables[table], "\(table): \(full.tables)")
                    #expect(scans.sequential == 0, "\(table): \(scans)")
                    #expect(scans.fetched < 100, "\(table): \(scans)")
                }
            }
        }
    }

    @Test("a claim of one function reads that function's deliveries only, not a backlog of others' (migration 0008)")
    func claimReadsItsFunctionsOnly() async throws {
        let (logger, _) = Logger.capturing()
        var registry = FunctionRegistry()
        registry.register("bulk", on: .create("items"), as: Item.self) { _, _ in }
        registry.register("urgent", on: .update("items"), as: Item.self) { _, _ in }
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query(
                "INSERT INTO items (id, name, value) SELECT g, 'x', 0 FROM generate_series(1, 10000) g"
            )
            try await client.query("UPDATE items SET value = 1 WHERE id = 10000")
            try await client.query("ANALYZE trigger_runtime.deliveries")
            // The urgent delivery is the last due: a scan in due order filtered by function read 10,000 rows first.
            let (claimed, fetched) = try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                // The session's earlier counts may still be pending in the transaction's: subtract them.
                let before = try await RuntimeHarness.indexFetches(connection, logger: logger)
                let rows = try await connection.query(
                    "SELECT function_name FROM trigger_runtime.claim(ARRAY['urgent'], 8, 'probe', 30)", logger: logger
                )
                var claimed: [String] = []
                for try await name in rows.decode(String.self) { claimed.append(name) }
                let fetched = try await RuntimeHarness.indexFetches(connection, logger: logger) - max(before, 0)
                try await connection.query("ROLLBACK", logger: logger)
                return (claimed, fetched)
            }
            #expect(claimed == ["urgent"])
            #expect(fetched >= 0 && fetched < 100, "rows the claim fetched through indexes: \(fetched)")
        }
    }

    @Test("the functions a worker runs per claim and completion plan generic and never sequentially (0011-0013)")
    func workerStatementsPlanGeneric() async throws {
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: FunctionRegistry(), logger: logger) { client, _ in
            let rows = try await client.query(
                """
                SELECT proname::text, array_to_string(proconfig, ',') FROM pg_proc
                WHERE pronamespace = 'trigger_runtime'::regnamespace
                  AND proname IN ('claim', 'hold_chains', 'wake_chains', 'promote_timers', 'mark_done')
                """,
                logger: logger
            )
            var settings: [String: String] = [:]
            for try await (name, config) in rows.decode((String, String?).self) { settings[name] = config ?? "" }
            #expect(settings.count == 5, "\(settings.keys.sorted())")
            for (name, config) in settings {
                #expect(config.contains("plan_cache_mode=force_generic_plan"), "\(name): \(config)")
                #expect(config.contains("enable_seqscan=off"), "\(name): \(config)")
            }
            // The claim keeps its planner settings (0008, 0010).
            #expect(settings["claim"]?.contains("enable_sort=off") == true)
            #expect(settings["claim"]?.contains("jit=off") == true)
        }
    }
}
