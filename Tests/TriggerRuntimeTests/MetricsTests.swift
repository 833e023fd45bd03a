import Foundation
import Logging
import Metrics
import MetricsTestKit
import ServiceLifecycle
import Synchronization
import Testing
import TriggerRuntime

@Suite("Runtime metrics", .timeLimit(.minutes(1)))
struct MetricsTests {
    struct Payload: Codable, Sendable {
        var n: Int
    }
    struct Flaky: Error {}

    @Test("captured, handled, retried and dead are counted per function; duration and lag are timed")
    func counters() async throws {
        let metrics = TestMetrics()
        let store = InMemoryOutboxStore()
        var registry = FunctionRegistry()
        let options = FunctionOptions(maxAttempts: 2, initialBackoff: .milliseconds(1), jitter: 0)
        registry.register("m", on: .create("t"), options: options, as: Payload.self) { change, _ in
            if try #require(change.after).n == 2 { throw Flaky() }
        }
        await store.emit("m", key: "1", after: #"{"n": 1}"#)
        let failing = await store.emit("m", key: "2", after: #"{"n": 2}"#)
        let registered = registry
        try await withMetricsFactory(metrics) {
            try await RunLoopTests.withRuntime(store: store, registry: registered) {
                for await (id, settlement) in store.settlements {
                    if id == failing, case .dead = settlement { break }
                }
            }
        }
        #expect(try metrics.expectCounter("trigger.captured", [("function", "m")]).totalValue == 2)
        let outcomes = ["handled": 1, "retried": 1, "dead": 1]
        for (outcome, count) in outcomes {
            let counter = try metrics.expectCounter("trigger.invocations", [("function", "m"), ("outcome", outcome)])
            #expect(counter.totalValue == Int64(count), "\(outcome)")
        }
        #expect(try metrics.expectTimer("trigger.invocation.duration", [("function", "m")]).values.count == 3)
        #expect(try metrics.expectTimer("trigger.lag", [("function", "m")]).values.count == 3)
    }

    @Test("a timer's delivery reaches its function as a timer (key, due time, payload) and counts as fired; a tick as a tick")
    func timersAndTicks() async throws {
        let metrics = TestMetrics()
        let store = InMemoryOutboxStore()
        let seen = Mutex<[FunctionContext]>([])
        let payloads = Mutex<[Int]>([])
        var registry = FunctionRegistry()
        registry.registerTimer("expire", as: Payload.self) { timer, context in
            payloads.withLock { $0.append(timer.payload.n) }
            seen.withLock { $0.append(context) }
        }
        try registry.registerSchedule("sweep", schedule: .every(.seconds(60))) { _, context in
            seen.withLock { $0.append(context) }
        }
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        await store.emitTimer("expire", document: "order-1", key: "round-1", dueAt: due, payload: #"{"n": 5}"#)
        await store.emitTimer(
            "sweep", document: "sweep", key: nil, dueAt: due, payload: #"{"scheduled_at": "x", "coalesced": 3}"#)
        let registered = registry
        try await withMetricsFactory(metrics) {
            try await RunLoopTests.withRuntime(store: store, registry: registered) {
                await store.waitForDone(2)
            }
        }
        let contexts = seen.withLock { $0 }.sorted { $0.eventID < $1.eventID }
        #expect(contexts.map(\.operation) == [.timer, .tick])
        #expect(contexts.first?.timer == TimerInfo(key: "round-1", dueAt: due))
        #expect(contexts.first?.tick == nil)
        #expect(contexts.last?.tick == ScheduleTick(scheduledAt: due, coalesced: 3))
        #expect(contexts.last?.timer == nil)
        #expect(payloads.withLock { $0 } == [5])
        #expect(try metrics.expectCounter("trigger.timers.fired", [("function", "expire")]).totalValue == 1)
        #expect(try metrics.expectTimer("trigger.lag", [("function", "expire")]).values.count == 1)
    }
}
