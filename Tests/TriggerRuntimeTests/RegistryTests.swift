import Foundation
import Logging
import Testing
import TriggerRuntime

@Suite("Function registry")
struct RegistryTests {
    @Test("matching(_:in:) is one equality per value, each quoted as a JSON string")
    func matchingValues() {
        let trigger = Trigger.update("orders", columns: ["status"]).matching("status", in: ["NEW", #"a"b\c"#])
        #expect(trigger.filter == #"$.status == "NEW" || $.status == "a\"b\\c""#)
        #expect(trigger.columns == ["status"])
        #expect(
            Trigger.create("events").matching("type", notIn: ["location", #"a"b"#]).filter
                == #"$.type != "location" && $.type != "a\"b""#
        )
    }

    struct Order: Decodable, Sendable, Equatable {
        var id: Int
        var status: String
        var updatedAt: Date

        enum CodingKeys: String, CodingKey {
            case id, status
            case updatedAt = "updated_at"
        }
    }

    struct UpdateOrderStatus: TriggerFunction {
        static let name: FunctionName = "updateOrderStatus"
        let seen: @Sendable (Change<Order>, FunctionContext) -> Void
        static var trigger: Trigger { .update("orders", columns: ["status"]) }
        static var options: FunctionOptions { FunctionOptions(maxAttempts: 3) }
        func handle(_ change: Change<Order>, context: FunctionContext) async throws { self.seen(change, context) }
    }

    static func context(_ name: FunctionName) -> FunctionContext {
        FunctionContext(
            eventID: 42, functionName: name, operation: .update, table: "public.orders", documentKey: "7",
            commitTime: Date(timeIntervalSince1970: 0), attempt: 1,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
    }

    @Test("registering needs no database; typed functions decode before/after from row JSON")
    func typedFunction() async throws {
        let received = LockedBox<Change<Order>?>(nil)
        var registry = FunctionRegistry()
        registry.register(UpdateOrderStatus { change, _ in received.set(change) })
        let function = try #require(registry.function(named: "updateOrderStatus"))
        #expect(function.trigger == .update("orders", columns: ["status"]))
        #expect(function.options.maxAttempts == 3)
        #expect(registry.bindings == [FunctionBinding(UpdateOrderStatus.self)])
        try await function.invoke(
            before: Data(#"{"id": 7, "status": "NEW", "updated_at": "2026-11-21 18:20:13.5+00"}"#.utf8),
            after: Data(#"{"id": 7, "status": "ACCEPTED", "updated_at": "2026-11-21T18:20:14Z", "extra": 1}"#.utf8),
            context: Self.context("updateOrderStatus")
        )
        let change = try #require(received.value)
        #expect(change.operation == .update)
        #expect(change.before?.status == "NEW")
        #expect(change.after?.status == "ACCEPTED")
        #expect(change.after!.updatedAt.timeIntervalSince(change.before!.updatedAt) == 0.5)
    }

    @Test("a row that does not decode fails the invocation (and so is retried), naming the field")
    func undecodableRow() async throws {
        var registry = FunctionRegistry()
        registry.register("f", on: .create("orders"), as: Order.self) { _, _ in }
        let function = try #require(registry.function(named: "f"))
        await #expect(throws: DecodingError.self) {
            try await function.invoke(before: nil, after: Data(#"{"id": "x"}"#.utf8), context: Self.context("f"))
        }
    }

    @Test("functions keep registration order and are found by persisted name only")
    func lookup() {
        var registry = FunctionRegistry()
        registry.register("b", on: .delete("t"), as: Order.self) { _, _ in }
        registry.register("a", on: .write("t", columns: ["x"]), as: Order.self) { _, _ in }
        #expect(registry.functions.map(\.name) == ["b", "a"])
        #expect(registry.function(named: "c") == nil)
        #expect(registry.function(named: "a")?.trigger?.operations == [.create, .update, .delete])
        #expect(registry.function(named: "a")?.trigger?.columns == ["x"])
        #expect(registry.function(named: "b")?.trigger?.keyColumn == "id")
    }
}

/// A value shared with a `@Sendable` closure.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { self.stored = value }

    var value: Value {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.stored
    }

    func set(_ value: Value) {
        self.lock.lock()
        self.stored = value
        self.lock.unlock()
    }
}
