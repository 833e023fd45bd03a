import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import TriggerRuntime

@Suite("TriggerRuntime capture and dispatch", .timeLimit(.minutes(5)))
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
