import Logging
import Metrics
import MetricsTestKit
import ServiceLifecycle
import Testing
import TriggerRuntime

@Suite("Runtime metrics", .timeLimit(.minutes(1)))
struct MetricsTests {
    struct Payload: Decodable, Sendable {
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
}
