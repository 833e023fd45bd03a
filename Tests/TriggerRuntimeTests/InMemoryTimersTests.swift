import Foundation
import Logging
import Synchronization
import Testing
import TriggerRuntime

@Suite("In-memory timers")
struct InMemoryTimersTests {
    struct Reminder: TimerFunction {
        struct Payload: Codable, Sendable, Equatable {
            var text: String
            var at: Date
        }
        static let name: FunctionName = "remind"
        let fired: @Sendable (TimerFiring<Payload>, FunctionContext) async throws -> Void
        func fire(_ timer: TimerFiring<Payload>, context: FunctionContext) async throws {
            try await self.fired(timer, context)
        }
    }

    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test("timers fire when the clock reaches their due time, in due order, with their payload and context")
    func firesInDueOrder() async throws {
        let fired = Mutex<[(String, String, Date, FunctionContext)]>([])
        var registry = FunctionRegistry()
        registry.register(Reminder { timer, context in
            fired.withLock { $0.append((timer.key, timer.payload.text, timer.dueAt, context)) }
        })
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let timers = InMemoryTimers(registry: registry, now: start, logger: Self.logger)
        let stamp = Date(timeIntervalSince1970: 1_800_000_123.25)
        try await timers.schedule(
            Reminder.self, document: "o1", key: "late", after: .seconds(30), payload: .init(text: "b", at: stamp), on: nil)
        try await timers.schedule(
            Reminder.self, document: "o2", key: "early", at: start.addingTimeInterval(10),
            payload: .init(text: "a", at: stamp), on: nil)

        #expect(try await timers.advance(by: .seconds(9)).isEmpty)
        #expect(fired.withLock { $0.isEmpty })
        let first = try await timers.advance(by: .seconds(1))
        #expect(first.map(\.key) == ["early"])
        try await timers.advance(by: .seconds(60))
        let seen = fired.withLock { $0 }
        #expect(seen.map(\.0) == ["early", "late"])
        #expect(seen.map(\.1) == ["a", "b"])
        #expect(seen.map(\.2) == [start.addingTimeInterval(10), start.addingTimeInterval(30)])
        let context = try #require(seen.last?.3)
        #expect(context.operation == .timer)
        #expect(context.documentKey == "o1")
        #expect(context.timer == TimerInfo(key: "late", dueAt: start.addingTimeInterval(30)))
        #expect(context.transaction == nil)
        #expect(await timers.now == start.addingTimeInterval(70))
        #expect(await timers.pendingTimers.isEmpty)
    }

    @Test("replace moves a pending timer, keep leaves it, cancel removes it")
    func replaceKeepCancel() async throws {
        let fired = Mutex<[String]>([])
        var registry = FunctionRegistry()
        registry.register(Reminder { timer, _ in fired.withLock { $0.append(timer.payload.text) } })
        let timers = InMemoryTimers(registry: registry, logger: Self.logger)
        let now = await timers.now
        let payload = { (text: String) in Reminder.Payload(text: text, at: now) }
        #expect(try await timers.schedule(Reminder.self, document: "o", key: "k", after: .seconds(10), payload: payload("first"), on: nil))
        #expect(try await timers.schedule(Reminder.self, document: "o", key: "k", after: .seconds(20), payload: payload("second"), ifExists: .replace, on: nil))
        #expect(try await timers.schedule(Reminder.self, document: "o", key: "k", after: .seconds(5), payload: payload("third"), ifExists: .keep, on: nil) == false)
        #expect(await timers.pendingTimers.map(\.dueAt) == [now.addingTimeInterval(20)])
        try await timers.advance(by: .seconds(15))
        #expect(fired.withLock { $0.isEmpty })
        try await timers.advance(by: .seconds(5))
        #expect(fired.withLock { $0 } == ["second"])

        try await timers.schedule(Reminder.self, document: "o", key: "k", after: .seconds(10), payload: payload("gone"), on: nil)
        #expect(try await timers.cancel(Reminder.self, document: "o", key: "k", on: nil))
        #expect(try await timers.cancel(Reminder.self, document: "o", key: "k", on: nil) == false)
        try await timers.advance(by: .seconds(60))
        #expect(fired.withLock { $0 } == ["second"])
    }

    @Test("a handler can schedule the next timer on the same twin; one due within the advanced span fires too")
    func chained() async throws {
        let box = Mutex<InMemoryTimers?>(nil)
        let fired = Mutex<[Date]>([])
        var registry = FunctionRegistry()
        registry.register(Reminder { timer, _ in
            fired.withLock { $0.append(timer.dueAt) }
            guard let timers = box.withLock({ $0 }), fired.withLock({ $0.count }) < 3 else { return }
            try await timers.schedule(Reminder.self, document: "o", key: "k", after: .seconds(10), payload: timer.payload, on: nil)
        })
        let timers = InMemoryTimers(registry: registry, logger: Self.logger)
        box.withLock { $0 = timers }
        let start = await timers.now
        try await timers.schedule(Reminder.self, document: "o", key: "k", after: .seconds(10), payload: .init(text: "x", at: start), on: nil)
        try await timers.advance(by: .seconds(25))
        #expect(fired.withLock { $0 } == [start.addingTimeInterval(10), start.addingTimeInterval(20)])
        try await timers.advance(by: .seconds(5))
        #expect(fired.withLock { $0.count } == 3)
    }

    @Test("a timer of a function the registry lacks is refused; a handler's error is thrown by advance")
    func refusedAndFailing() async throws {
        struct Boom: Error {}
        var registry = FunctionRegistry()
        registry.registerTimer("fails", as: String.self) { _, _ in throw Boom() }
        let timers = InMemoryTimers(registry: registry, logger: Self.logger)
        let refused = await #expect(throws: TriggerRuntimeError.self) {
            try await timers.schedule("missing", document: "d", key: "k", due: .after(.seconds(1)), payload: nil, ifExists: .replace, on: nil)
        }
        #expect(refused?.code == .functionNotRegistered)
        try await timers.schedule("fails", document: "d", key: "k", due: .after(.seconds(1)), payload: Data("\"x\"".utf8), ifExists: .replace, on: nil)
        await #expect(throws: Boom.self) { try await timers.advance(by: .seconds(1)) }
        #expect(await timers.pendingTimers.isEmpty)
    }
}
