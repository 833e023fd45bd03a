import Foundation
import Logging
import ServiceLifecycle
import Testing
import TriggerRuntime

@Suite("Run loop on the in-memory outbox", .timeLimit(.minutes(1)))
struct RunLoopTests {
    struct Payload: Decodable, Sendable {
        var n: Int
    }
    struct Flaky: Error {}

    static func configuration() -> TriggerRuntime.Configuration {
        var configuration = TriggerRuntime.Configuration()
        configuration.listen = false
        configuration.pollInterval = .seconds(5)
        configuration.shutdownGracePeriod = .milliseconds(100)
        return configuration
    }

    /// Runs the worker over `store` during `body`, then shuts it down gracefully.
    static func withRuntime(
        store: InMemoryOutboxStore,
        registry: FunctionRegistry,
        configuration: TriggerRuntime.Configuration = Self.configuration(),
        _ body: @Sendable () async throws -> Void
    ) async throws {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let runtime = TriggerRuntime(store: store, registry: registry, configuration: configuration, logger: logger)
        try await ServiceGroup.withRunning([runtime], logger: logger, body)
    }

    @Test("failures are retried with backoff until success; the context carries the attempt")
    func retriesUntilSuccess() async throws {
        let store = InMemoryOutboxStore()
        let attempts = LockedBox<[Int]>([])
        var registry = FunctionRegistry()
        let options = FunctionOptions(maxAttempts: 5, initialBackoff: .milliseconds(5), jitter: 0)
        registry.register("flaky", on: .create("t"), options: options, as: Payload.self) { _, context in
            attempts.set(attempts.value + [context.attempt])
            if context.attempt < 3 { throw Flaky() }
        }
        let id = await store.emit("flaky", key: "1", after: #"{"n": 1}"#)
        let registered = registry
        try await Self.withRuntime(store: store, registry: registered) {
            var outcomes: [Settlement] = []
            for await (settledID, settlement) in store.settlements where settledID == id {
                outcomes.append(settlement)
                if settlement == .done { break }
            }
            #expect(outcomes == [.retry(delay: .milliseconds(5), error: "Flaky()"), .retry(delay: .milliseconds(10), error: "Flaky()"), .done])
        }
        #expect(attempts.value == [1, 2, 3])
        #expect(await store.done == [id])
    }

    @Test("an error that carries a Retry-After is retried no sooner than it asks, whatever the backoff")
    func retryAfterHint() async throws {
        struct Busy: RetryAfterHinting {
            var retryAfter: Duration? { .seconds(600) }
        }
        let store = InMemoryOutboxStore()
        var registry = FunctionRegistry()
        let options = FunctionOptions(maxAttempts: 5, initialBackoff: .milliseconds(5), jitter: 0)
        registry.register("busy", on: .create("t"), options: options, as: Payload.self) { _, _ in throw Busy() }
        let id = await store.emit("busy", key: "1", after: #"{"n": 1}"#)
        let registered = registry
        try await Self.withRuntime(store: store, registry: registered) {
            for await (settledID, settlement) in store.settlements where settledID == id {
                guard case .retry(let delay, _) = settlement else {
                    Issue.record("expected a retry, got \(settlement)")
                    break
                }
                #expect(delay == .seconds(600), "the hint, not the 5 ms backoff")
                break
            }
        }
    }

    @Test("the last failed attempt dead-letters with the error text")
    func deadLetter() async throws {
        let store = InMemoryOutboxStore()
        var registry = FunctionRegistry()
        registry.register(
            "doomed", on: .create("t"), options: FunctionOptions(maxAttempts: 2, initialBackoff: .milliseconds(1)),
            as: Payload.self
        ) { _, _ in throw Flaky() }
        let id = await store.emit("doomed", key: "1", after: #"{"n": 1}"#)
        let registered = registry
        try await Self.withRuntime(store: store, registry: registered) {
            for await (settledID, settlement) in store.settlements where settledID == id {
                if case .dead(let error) = settlement {
                    #expect(error == "Flaky()")
                    break
                }
            }
        }
        #expect(await store.lastError(id) == "Flaky()")
    }

    @Test("one document's deliveries run one at a time in order")
    func perDocumentOrder() async throws {
        let store = InMemoryOutboxStore()
        let seen = LockedBox<[Int]>([])
        var registry = FunctionRegistry()
        registry.register("ordered", on: .create("t"), as: Payload.self) { change, _ in
            seen.set(seen.value + [try #require(change.after).n])
            await Task.yield()
        }
        for n in 1...50 { await store.emit("ordered", key: "doc", after: #"{"n": \#(n)}"#) }
        let registered = registry
        try await Self.withRuntime(store: store, registry: registered) {
            await store.waitForDone(50)
        }
        #expect(seen.value == Array(1...50))
    }

    @Test("fast handlers share one lane: a claim of 20 runs in one transaction, not one per handler slot")
    func fastHandlersShareOneTransaction() async throws {
        let store = InMemoryOutboxStore()
        var registry = FunctionRegistry()
        registry.register("fast", on: .create("t"), as: Payload.self) { _, _ in }
        await store.emit("fast", numbered: 1...20)
        var configuration = Self.configuration()
        configuration.laneStartDelay = .seconds(60)  // a second lane only if the first stalled that long
        configuration.transactionWindow = .seconds(60)
        let registered = registry
        try await Self.withRuntime(store: store, registry: registered, configuration: configuration) {
            await store.waitForDone(20)
        }
        #expect(await store.commits == [20])
    }

    @Test("a high-priority function's deliveries run before the others already due, each committed on its own")
    func highPriorityFirst() async throws {
        let (order, commits) = try await Self.prioritiesRun([("bookkeeping", .normal, 30), ("offer", .high, 2)])
        #expect(Array(order.prefix(2)) == ["o1", "o2"], "\(order)")
        #expect(Array(order.dropFirst(2)) == (1...30).map { "b\($0)" })
        // Each urgent delivery commits as soon as it ran; the others still share a transaction.
        #expect(commits == [1, 1, 30])
    }

    @Test("an elevated function's deliveries run after the high-priority ones and before the others")
    func elevatedBetween() async throws {
        let (order, commits) = try await Self.prioritiesRun([
            ("bookkeeping", .normal, 30), ("arrival", .elevated, 2), ("offer", .high, 2),
        ])
        #expect(Array(order.prefix(4)) == ["o1", "o2", "a1", "a2"], "\(order)")
        #expect(Array(order.dropFirst(4)) == (1...30).map { "b\($0)" })
        // Elevated deliveries commit on their own too.
        #expect(commits == [1, 1, 1, 1, 30])
    }

    /// Runs one lane over `functions`' deliveries, emitted in the order given (each function its own table and
    /// documents): the order they ran in (each as its function's initial and number) and the commits' sizes.
    private static func prioritiesRun(
        _ functions: [(name: FunctionName, priority: FunctionOptions.Priority, count: Int)]
    ) async throws -> (order: [String], commits: [Int]) {
        let store = InMemoryOutboxStore()
        let order = LockedBox<[String]>([])
        var registry = FunctionRegistry()
        for function in functions {
            let (options, table) = (FunctionOptions(priority: function.priority), function.name.rawValue)
            registry.register(function.name, on: .create(table), options: options, as: Payload.self) { change, _ in
                order.set(order.value + ["\(function.name.rawValue.prefix(1))\(try #require(change.after).n)"])
            }
            for n in 1...function.count {
                await store.emit(function.name, key: "\(function.name)-\(n)", after: #"{"n": \#(n)}"#)
            }
        }
        var configuration = Self.configuration()
        configuration.concurrency = 1
        configuration.transactionWindow = .seconds(60)
        let registered = registry
        try await Self.withRuntime(store: store, registry: registered, configuration: configuration) {
            await store.waitForDone(functions.reduce(0) { $0 + $1.count })
        }
        return (order.value, await store.commits)
    }

    @Test("high-priority deliveries always due do not starve the others: those are claimed and run all the same")
    func highPriorityDoesNotStarve() async throws {
        let store = InMemoryOutboxStore()
        let othersDone = AsyncStream<Int>.makeStream()
        let urgentRuns = LockedBox(0)
        var registry = FunctionRegistry()
        registry.register("bookkeeping", on: .create("t"), as: Payload.self) { change, _ in
            othersDone.continuation.yield(try #require(change.after).n)
        }
        // Each urgent delivery that runs is replaced by a new one, and 200 are due: more than the claims can take,
        // always (the 16th session's chaos run: 10,000 orders waiting, their rounds filling every claim).
        registry.register("round", on: .create("o"), options: FunctionOptions(priority: .high), as: Payload.self) {
            change, _ in
            urgentRuns.set(urgentRuns.value + 1)
            let n = try #require(change.after).n + 1_000_000
            await store.emit("round", key: "order-\(n)", after: #"{"n": \#(n)}"#)
        }
        var configuration = Self.configuration()
        configuration.batchSize = 8
        configuration.concurrency = 2
        for n in 1...200 { await store.emit("round", key: "order-\(n)", after: #"{"n": \#(n)}"#) }
        await store.emit("bookkeeping", numbered: 1...10)
        let registered = registry
        try await Self.withRuntime(store: store, registry: registered, configuration: configuration) {
            var seen: Set<Int> = []
            for await n in othersDone.stream {
                seen.insert(n)
                if seen.count == 10 { break }
            }
        }
        // Urgent ones still went ahead: more of them ran meanwhile than of the others (about three for each when
        // both queues are full; fewer when a claim's urgent ones ran out before the next claim).
        #expect(urgentRuns.value > 10, "\(urgentRuns.value) urgent deliveries ran")
    }

    @Test("slow handlers get a lane each, one lane start delay after another, up to the concurrency")
    func slowHandlersScaleOut() async throws {
        let store = InMemoryOutboxStore()
        // Every handler waits until all four run at once: only four lanes can get there (one lane would hang).
        let barrier = Barrier(parties: 4)
        var registry = FunctionRegistry()
        registry.register("slow", on: .create("t"), as: Payload.self) { _, _ in
            await barrier.arrive()
        }
        await store.emit("slow", numbered: 1...4)
        var configuration = Self.configuration()
        configuration.laneStartDelay = .milliseconds(1)
        let registered = registry
        try await Self.withRuntime(store: store, registry: registered, configuration: configuration) {
            await store.waitForDone(4)
        }
        #expect(await store.commits == [1, 1, 1, 1])
    }

    @Test("while claims are paced the worker declares itself awake, and withdraws when the stream ends")
    func pacedClaimsDeclareAwake() async throws {
        // Whether two claims in a row find "a few" depends on how the handlers and the dispatcher interleave: on a
        // loaded machine (CI's full suite starting) every claim once found exactly one, so the run never paced.
        // Up to three runs; one that paces must declare awake first and withdraw last.
        var wakefulness: [String] = []
        for _ in 1...3 where wakefulness.first != "awake" {
            wakefulness = try await Self.chainRun()
        }
        #expect(wakefulness.first == "awake")
        #expect(wakefulness.last == "withdrawn")
    }

    /// Four chains: each handled delivery captures the next of its chain, so claims find a few (never a full
    /// batch) until 100 have been captured. Returns the store's wakefulness declarations.
    static func chainRun() async throws -> [String] {
        let store = InMemoryOutboxStore()
        var registry = FunctionRegistry()
        registry.register("chain", on: .create("t"), as: Payload.self) { change, _ in
            let n = try #require(change.after).n
            if n + 4 <= 100 { await store.emit("chain", numbered: (n + 4)...(n + 4)) }
        }
        await store.emit("chain", numbered: 1...4)
        var configuration = Self.configuration()
        configuration.claimInterval = .milliseconds(2)
        let registered = registry
        try await Self.withRuntime(store: store, registry: registered, configuration: configuration) {
            await store.waitForDone(100)
        }
        return await store.wakefulness
    }

    /// Returns from `arrive()` once `parties` callers are waiting in it.
    actor Barrier {
        let parties: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(parties: Int) {
            self.parties = parties
        }

        func arrive() async {
            if self.waiting.count + 1 == self.parties {
                for waiter in self.waiting { waiter.resume() }
                self.waiting = []
                return
            }
            await withCheckedContinuation { self.waiting.append($0) }
        }
    }

    @Test("at shutdown, a handler still running after the grace period is cancelled and its delivery released")
    func shutdownReleases() async throws {
        let store = InMemoryOutboxStore()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        var registry = FunctionRegistry()
        registry.register("slow", on: .create("t"), as: Payload.self) { _, _ in
            startedContinuation.yield()
            try await Task.sleep(for: .seconds(3600))
        }
        let id = await store.emit("slow", key: "1", after: #"{"n": 1}"#)
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let runtime = TriggerRuntime(store: store, registry: registry, configuration: Self.configuration(), logger: logger)
        let group = ServiceGroup(services: [runtime], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var settlements = store.settlements.makeAsyncIterator()
            // Claimed and running: shut down; the grace period (100 ms) runs out while it sleeps.
            var starts = started.makeAsyncIterator()
            await starts.next()
            await group.triggerGracefulShutdown()
            let settled = await settlements.next()
            #expect(settled?.id == id)
            #expect(settled?.settlement == .release)
            try await tasks.waitForAll()
        }
    }

    @Test("a lease lost during a batched transaction rolls the batch back; each delivery then runs alone and is fenced")
    func batchLeaseLost() async throws {
        let store = InMemoryOutboxStore()
        let runs = LockedBox<[Int]>([])
        var registry = FunctionRegistry()
        registry.register("stolen", on: .create("t"), as: Payload.self) { change, context in
            let n = try #require(change.after).n
            runs.set(runs.value + [n])
            // The first run of delivery 1 loses its lease to "another worker" while it runs.
            if n == 1 && runs.value.filter({ $0 == 1 }).count == 1 { await store.steal(context.eventID) }
        }
        let first = await store.emit("stolen", key: "a", after: #"{"n": 1}"#)
        let second = await store.emit("stolen", key: "b", after: #"{"n": 2}"#)
        let registered = registry
        let settled = LockedBox<[Int64: Settlement]>([:])
        try await Self.withRuntime(store: store, registry: registered) {
            for await (id, settlement) in store.settlements {
                settled.set(settled.value.merging([id: settlement]) { $1 })
                if settled.value.count == 2 { break }
            }
        }
        let outcomes = settled.value
        #expect(outcomes[first] == .leaseLost)
        #expect(outcomes[second] == .done)
        #expect(await store.done == [second])
        // Delivery 1 ran in the batch and again alone; delivery 2 ran again only if it shared the batch.
        #expect(runs.value.filter { $0 == 1 }.count == 2)
    }

    /// The messages logged at warning or above, each with its event id.
    struct Warnings: LogHandler {
        let messages: LockedBox<[(message: String, event: String?)]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .warning

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { self.metadata[key] }
            set { self.metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let id = (event.metadata?["trigger.event_id"] ?? self.metadata["trigger.event_id"]).map { "\($0)" }
            self.messages.set(self.messages.value + [("\(event.message)", id)])
        }
    }

    @Test("a renewal that reads after a delivery's commit, before its lane resumes, reports no lost lease; a stolen one is reported")
    func renewalRacingACommit() async throws {
        let store = InMemoryOutboxStore()
        /// Returns after `count` renewals made from now on that did not find one of the deliveries they asked
        /// about.
        @Sendable func missed(_ count: Int) async {
            let start = await store.renewalCount
            var seen = 0
            for await renewal in store.renewals
            where renewal.number > start && renewal.asked.contains(where: { !renewal.held.contains($0) }) {
                seen += 1
                if seen == count { return }
            }
        }
        let warnings = LockedBox<[(message: String, event: String?)]>([])
        @Sendable func lostWarnings(_ id: Int64) -> Int {
            warnings.value.filter { $0.message.hasPrefix("lease lost") && $0.event == "\(id)" }.count
        }
        /// For each run of delivery 2: whether a renewal reported its lease lost while it ran.
        let reported = LockedBox<[Bool]>([])
        var registry = FunctionRegistry()
        registry.register("f", on: .create("t"), as: Payload.self) { change, context in
            // Delivery 2 loses its lease to another worker while it runs (in its batch, then again alone).
            if try #require(change.after).n == 2 {
                let before = lostWarnings(context.eventID)
                await store.steal(context.eventID)
                await missed(2)
                reported.set(reported.value + [lostWarnings(context.eventID) > before])
            }
        }
        // Each lane resumes after its commit only once two renewals (run one after the other, so the first has
        // reported what it found) asked about its deliveries after the commit settled them.
        let (resumed, resumedContinuation) = AsyncStream<Void>.makeStream()
        await store.afterCommit {
            await missed(2)
            resumedContinuation.yield()
        }
        let logger = Logger(label: "test") { _ in Warnings(messages: warnings) }
        var configuration = Self.configuration()
        configuration.leaseRenewalInterval = .milliseconds(10)
        let runtime = TriggerRuntime(store: store, registry: registry, configuration: configuration, logger: logger)
        let (first, second) = try await ServiceGroup.withRunning([runtime], logger: logger) {
            var resumes = resumed.makeAsyncIterator()
            let first = await store.emit("f", key: "a", after: #"{"n": 1}"#)
            await resumes.next()
            // Delivery 2's batch is rolled back at its commit (the fence); it then runs alone, settled lease lost.
            let second = await store.emit("f", key: "b", after: #"{"n": 2}"#)
            await resumes.next()
            return (first, second)
        }
        #expect(await store.done == [first])
        let lost = warnings.value.filter { $0.message.hasPrefix("lease lost") }
        #expect(!lost.contains { $0.event == "\(first)" }, "delivery 1 was committed, not lost: \(lost)")
        #expect(lost.contains { $0.event == "\(second)" }, "delivery 2's lease was taken over: \(warnings.value)")
        #expect(reported.value == [true, true], "each run of delivery 2 saw its lost lease reported")
    }
}
