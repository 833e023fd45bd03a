import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import TriggerRuntime

@Suite("TriggerRuntime capture and dispatch", .timeLimit(.minutes(10)))
struct CaptureTests {
    struct Call: Sendable {
        var function: FunctionName
        var change: Change<Item>
        var context: FunctionContext
    }

    @Test("insert, update and delete fire the matching functions with before/after; rollback and no-op UPDATE fire nothing")
    func captureAndDispatch() async throws {
        let calls = Observations<Call>()
        var builder = FunctionRegistry()
        for (name, trigger) in [
            ("onCreate", Trigger.create("items")), ("onUpdate", Trigger.update("items")),
            ("onDelete", Trigger.delete("items")), ("onWrite", Trigger.write("items")),
            ("onValue", Trigger.update("items", columns: ["value"])),
        ] {
            builder.register(FunctionName(name), on: trigger, as: Item.self) { change, context in
                calls.append(Call(function: context.functionName, change: change, context: context))
            }
        }
        let (logger, _) = Logger.capturing()
        let registry = builder
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'a', 10)")
            try await client.query("UPDATE items SET name = 'b' WHERE id = 1")
            try await client.query("UPDATE items SET value = 11 WHERE id = 1")
            // An UPDATE that changes nothing, and a rolled-back write, record nothing.
            try await client.query("UPDATE items SET name = 'b' WHERE id = 1")
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                try await connection.query("INSERT INTO items (id, name, value) VALUES (2, 'x', 0)", logger: logger)
                try await connection.query("UPDATE items SET value = 99 WHERE id = 1", logger: logger)
                try await connection.query("ROLLBACK", logger: logger)
            }
            try await client.query("DELETE FROM items WHERE id = 1")

            // Capture happens in the writers' transactions: the queue is final before any worker runs.
            let recorded = try await client.query(
                "SELECT function_name, operation FROM trigger_runtime.deliveries ORDER BY id"
            )
            var pairs: [String] = []
            for try await (function, operation) in recorded.decode((String, String).self) {
                pairs.append("\(function):\(operation)")
            }
            #expect(
                pairs == [
                    "onCreate:create", "onWrite:create",
                    "onUpdate:update", "onWrite:update",
                    "onUpdate:update", "onWrite:update", "onValue:update",
                    "onDelete:delete", "onWrite:delete",
                ]
            )

            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await calls.wait("9 calls") { $0.count >= 9 }
            }
            let a = Item(id: 1, name: "a", value: 10)
            let b = Item(id: 1, name: "b", value: 10)
            let c = Item(id: 1, name: "b", value: 11)
            let byFunction = Dictionary(grouping: calls.entries, by: \.function)
            #expect(byFunction["onCreate"]?.map(\.change) == [Change(operation: .create, before: nil, after: a)])
            #expect(
                byFunction["onUpdate"]?.sorted { $0.context.eventID < $1.context.eventID }.map(\.change)
                    == [Change(operation: .update, before: a, after: b), Change(operation: .update, before: b, after: c)]
            )
            #expect(byFunction["onValue"]?.map(\.change) == [Change(operation: .update, before: b, after: c)])
            #expect(byFunction["onDelete"]?.map(\.change) == [Change(operation: .delete, before: c, after: nil)])
            #expect(byFunction["onWrite"]?.count == 4)
            let context = try #require(byFunction["onCreate"]?.first?.context)
            #expect(context.table == "public.items")
            #expect(context.documentKey == "1")
            #expect(context.attempt == 1)
            #expect(abs(context.commitTime.timeIntervalSinceNow) < 300)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.deliveries") == 0)
            #expect(try await RuntimeHarness.count(client, "SELECT count(*) FROM trigger_runtime.done") == 9)
        }
    }

    @Test("a row filter fires its function only for matching rows (the new row; the old one for deletes)")
    func rowFilter() async throws {
        var builder = FunctionRegistry()
        builder.register("big", on: Trigger.write("items").matching("$.value >= 10"), as: Item.self) { _, _ in }
        builder.register("named", on: Trigger.create("items").matching(#"$.name != "skip""#), as: Item.self) { _, _ in }
        builder.register("all", on: .create("items"), as: Item.self) { _, _ in }
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: builder, logger: logger) { client, _ in
            try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'skip', 5)")
            try await client.query("INSERT INTO items (id, name, value) VALUES (2, 'keep', 50)")
            try await client.query("UPDATE items SET value = 20 WHERE id = 1")  // now big
            try await client.query("UPDATE items SET value = 1 WHERE id = 2")  // no longer big
            try await client.query("DELETE FROM items WHERE id = 1")  // was big
            let recorded = try await client.query(
                "SELECT function_name, operation, document_key FROM trigger_runtime.deliveries ORDER BY id"
            )
            var fired: [String] = []
            for try await (function, operation, key) in recorded.decode((String, String, String).self) {
                fired.append("\(function):\(operation):\(key)")
            }
            #expect(
                fired.sorted() == [
                    "all:create:1", "all:create:2", "big:create:2", "big:delete:1", "big:update:1", "named:create:2",
                ]
            )
        }
    }

    @Test("value filters on string and enum columns guard the capture trigger: rows no function wants never call it")
    func valueFiltersGuardTheTrigger() async throws {
        struct Tagged: Decodable, Sendable { var id: Int }
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: FunctionRegistry(), logger: logger) { client, _ in
            try await client.query("CREATE TYPE mood AS ENUM ('calm', 'angry')")
            try await client.query("CREATE TABLE tagged (id int PRIMARY KEY, kind text, mood mood)")
            let installer = TriggerInstaller(client: client, logger: logger)
            var registry = FunctionRegistry()
            registry.register("notLocation", on: Trigger.create("tagged").matching("kind", notIn: ["location", "it's"]),
                              as: Tagged.self) { _, _ in }
            registry.register("angry", on: Trigger.write("tagged", columns: ["mood"]).matching("mood", in: ["angry"]),
                              as: Tagged.self) { _, _ in }
            // A delete's trigger has no NEW: with "angry" reacting to deletes, no WHEN at all.
            try await installer.install(registry)
            #expect(try await Self.triggerDefinition(client, "tagged").contains("WHEN") == false)
            registry = FunctionRegistry()
            registry.register("notLocation", on: Trigger.create("tagged").matching("kind", notIn: ["location", "it's"]),
                              as: Tagged.self) { _, _ in }
            registry.register("angry", on: Trigger.update("tagged", columns: ["mood"]).matching("mood", in: ["angry"]),
                              as: Tagged.self) { _, _ in }
            try await installer.install(registry)
            let definition = try await Self.triggerDefinition(client, "tagged")
            #expect(definition.contains("WHEN"), "\(definition)")

            // Counted in one transaction: the capture function's calls are this backend's until it ends.
            try await client.withConnection { connection in
                func calls() async throws -> Int {
                    let rows = try await connection.query(
                        """
                        SELECT coalesce(pg_stat_get_xact_function_calls('trigger_runtime.capture'::regproc), 0)::int8
                        """,
                        logger: logger
                    )
                    var count = -1
                    for try await value in rows.decode(Int64.self) { count = Int(value) }
                    return count
                }
                try await connection.query("BEGIN", logger: logger)
                try await connection.query("SET LOCAL track_functions = 'pl'", logger: logger)
                try await connection.query(
                    "INSERT INTO tagged VALUES (1, 'location', 'calm'), (2, 'it''s', NULL)", logger: logger)
                #expect(try await calls() == 0, "rows no function wants do not call the capture function")
                // A null kind matches `!=` (as in a SQL/JSON path); a kind differing in case is another kind; a
                // location row that turns angry is captured for "angry".
                try await connection.query(
                    "INSERT INTO tagged VALUES (3, NULL, NULL), (4, 'Location', 'calm')", logger: logger)
                try await connection.query("UPDATE tagged SET mood = 'angry' WHERE id = 1", logger: logger)
                #expect(try await calls() == 3)
                // The WHEN is the union of the functions' conditions; each function still applies its own: a
                // non-location row's update calls the capture function, which delivers nothing for it.
                try await connection.query("UPDATE tagged SET mood = 'calm' WHERE id = 4", logger: logger)
                #expect(try await calls() == 4)
                try await connection.query("COMMIT", logger: logger)
            }
            let recorded = try await client.query(
                "SELECT function_name, operation, document_key FROM trigger_runtime.deliveries ORDER BY id"
            )
            var fired: [String] = []
            for try await (function, operation, key) in recorded.decode((String, String, String).self) {
                fired.append("\(function):\(operation):\(key)")
            }
            #expect(fired.sorted() == ["angry:update:1", "notLocation:create:3", "notLocation:create:4"])

            // Any function of the table without such a filter (a path, a number's values, none) removes the WHEN.
            for trigger in [
                Trigger.create("tagged").matching(#"$.kind != "x""#),
                Trigger.create("tagged").matching("id", in: ["1"]),
                Trigger.create("tagged"),
            ] {
                var wider = registry
                wider.register("other", on: trigger, as: Tagged.self) { _, _ in }
                try await installer.install(wider)
                #expect(try await Self.triggerDefinition(client, "tagged").contains("WHEN") == false, "\(trigger)")
            }

            // A char(n) keeps its padding in the row's jsonb: "ab  " is not "ab" to the path, nor to the WHEN.
            try await client.query("CREATE TABLE coded (id int PRIMARY KEY, code char(4))")
            var coded = FunctionRegistry()
            let notAb = Trigger.create("coded").matching("code", notIn: ["ab"])
            coded.register("notAb", on: notAb, as: Tagged.self) { _, _ in }
            try await installer.install(coded)
            #expect(try await Self.triggerDefinition(client, "coded").contains("WHEN"))
            try await client.query("INSERT INTO coded VALUES (1, 'ab')")
            #expect(
                try await RuntimeHarness.count(
                    client, "SELECT count(*) FROM trigger_runtime.deliveries WHERE function_name = 'notAb'") == 1
            )
        }
    }

    static func triggerDefinition(_ client: PostgresClient, _ table: String) async throws -> String {
        let rows = try await client.query(
            """
            SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t
            WHERE t.tgname = 'trigger_runtime_capture' AND t.tgrelid = to_regclass(\(table))
            """
        )
        var definitions: [String] = []
        for try await definition in rows.decode(String.self) { definitions.append(definition) }
        return try #require(definitions.first)
    }

    @Test("a handler's writes and its completion commit together; a throwing handler's writes roll back")
    func completionInHandlerTransaction() async throws {
        let calls = Observations<Int>()
        var builder = FunctionRegistry()
        builder.register(
            "audit", on: .create("items"), options: FunctionOptions(maxAttempts: 2, initialBackoff: .milliseconds(50)),
            as: Item.self
        ) { change, context in
            let item = try #require(change.after)
            let connection = try #require(context.transaction)
            try await connection.query(
                "INSERT INTO audit (item_id, attempt) VALUES (\(item.id), \(context.attempt))", logger: context.logger
            )
            calls.append(context.attempt)
            if item.value < 0 && context.attempt == 1 { throw CancelledOnPurpose() }
        }
        let (logger, _) = Logger.capturing()
        let registry = builder
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            try await client.query("CREATE TABLE audit (item_id int, attempt int)")
            try await client.query("INSERT INTO items (id, name, value) VALUES (1, 'ok', 1), (2, 'flaky', -1)")
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await calls.wait("3 calls") { $0.count >= 3 }
            }
            let rows = try await client.query("SELECT item_id, attempt FROM audit ORDER BY item_id, attempt")
            var audit: [[Int]] = []
            for try await (id, attempt) in rows.decode((Int, Int).self) { audit.append([id, attempt]) }
            // The first attempt on item 2 threw: its audit row rolled back with it.
            #expect(audit == [[1, 1], [2, 2]])
        }
    }

    struct CancelledOnPurpose: Error {}
}
