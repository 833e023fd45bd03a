import Foundation
import PostgresNIO
import TriggerRuntime

/// The outbox in memory: the same claim, ordering, lease and fencing rules as PostgreSQL, without a database.
/// Settlements are published on `settlements`.
actor InMemoryOutboxStore: OutboxStore {
    private struct Row {
        var delivery: Delivery
        var runAfter: ContinuousClock.Instant
        var dead = false
        var leased = false
        var lastError: String?
    }
    private var rows: [Int64: Row] = [:]
    private var nextID: Int64 = 1
    private(set) var done: [Int64] = []
    /// Transactions committed, and how many deliveries each settled.
    private(set) var commits: [Int] = []
    nonisolated let settlements: AsyncStream<(id: Int64, settlement: Settlement)>
    private let continuation: AsyncStream<(id: Int64, settlement: Settlement)>.Continuation
    /// Each lease renewal: its number (from 1), the deliveries asked about and those it found held.
    nonisolated let renewals: AsyncStream<(number: Int, asked: [Int64], held: Set<Int64>)>
    private let renewalContinuation: AsyncStream<(number: Int, asked: [Int64], held: Set<Int64>)>.Continuation
    /// Lease renewals so far.
    private(set) var renewalCount = 0
    /// Runs after a transaction's commit, before `withTransaction` returns to the worker (a lane resuming late).
    private var afterCommit: (@Sendable () async -> Void)?

    init() {
        (self.settlements, self.continuation) = AsyncStream.makeStream()
        (self.renewals, self.renewalContinuation) = AsyncStream.makeStream()
    }

    func afterCommit(_ hook: @escaping @Sendable () async -> Void) { self.afterCommit = hook }

    /// Records a change, as the capture trigger would.
    @discardableResult
    func emit(_ function: FunctionName, key: String, after: String) -> Int64 {
        let id = self.nextID
        self.nextID += 1
        let delivery = Delivery(
            id: id, function: function, table: "public.t", operation: .create, documentKey: key, before: nil,
            after: Data(after.utf8), committedAt: Date(), attempt: 0, leaseToken: UUID()
        )
        self.rows[id] = Row(delivery: delivery, runAfter: .now)
        return id
    }

    /// Records a delivery as the promotion of a due timer (or, with `tick`, a schedule's tick) leaves it.
    @discardableResult
    func emitTimer(_ function: FunctionName, document: String, key: String?, dueAt: Date, payload: String) -> Int64 {
        let id = self.nextID
        self.nextID += 1
        let delivery = Delivery(
            id: id, function: function, table: "", operation: key == nil ? .tick : .timer, documentKey: document,
            before: nil, after: Data(payload.utf8), committedAt: dueAt, attempt: 0, leaseToken: UUID(), timerKey: key
        )
        self.rows[id] = Row(delivery: delivery, runAfter: .now)
        return id
    }

    /// Records one delivery of `function` per number `n` in `numbers`: document `doc<n>`, row `{"n": <n>}`.
    func emit(_ function: FunctionName, numbered numbers: ClosedRange<Int>) {
        for n in numbers { self.emit(function, key: "doc\(n)", after: #"{"n": \#(n)}"#) }
    }

    func lastError(_ id: Int64) -> String? { self.rows[id]?.lastError }

    /// Returns once `count` deliveries were settled done (counted from the first call's subscription).
    nonisolated func waitForDone(_ count: Int) async {
        var done = 0
        for await (_, settlement) in self.settlements where settlement == .done {
            done += 1
            if done == count { return }
        }
    }

    /// Takes the lease of `id` over, as another worker's claim after an expired lease would.
    func steal(_ id: Int64) {
        self.rows[id]?.delivery.leaseToken = UUID()
    }

    func claim(limit: Int, functions: [FunctionName], owner: String, lease: Duration) async throws -> [Delivery] {
        let now = ContinuousClock.now
        var claimed: [Delivery] = []
        for id in self.rows.keys.sorted() where claimed.count < limit {
            guard let row = self.rows[id], !row.dead, row.runAfter <= now, functions.contains(row.delivery.function)
            else { continue }
            let blocked = self.rows.values.contains {
                !$0.dead && $0.delivery.id < id && $0.delivery.function == row.delivery.function
                    && $0.delivery.documentKey == row.delivery.documentKey
            }
            if blocked { continue }
            var delivery = row.delivery
            delivery.attempt += 1
            delivery.leaseToken = UUID()
            self.rows[id] = Row(delivery: delivery, runAfter: now + lease, leased: true, lastError: row.lastError)
            claimed.append(delivery)
        }
        return claimed
    }

    nonisolated func withTransaction<Result: Sendable>(
        batched: Bool,
        _ body: (any OutboxTransaction) async throws -> Result
    ) async throws -> Result {
        let transaction = Transaction(store: self, batched: batched)
        let result = try await body(transaction)
        try await self.commit(transaction.settled, batched: batched)
        await self.afterCommit?()
        return result
    }

    /// Whether `delivery` still holds its lease (the fence of the real store's completion).
    fileprivate func holds(_ delivery: Delivery) -> Bool {
        guard let row = self.rows[delivery.id] else { return false }
        return row.leased && row.delivery.leaseToken == delivery.leaseToken
    }

    /// Applies a transaction's settlements, as its commit would, and publishes them. Batched, the deliveries
    /// marked done are fenced here, all or none (`BatchLeaseLost`).
    private func commit(_ settled: [(Delivery, Settlement)], batched: Bool) throws {
        if batched {
            let lost = settled.filter { $0.1 == .done && !self.holds($0.0) }.map(\.0.id)
            if !lost.isEmpty { throw BatchLeaseLost(ids: Set(lost)) }
        }
        self.commits.append(settled.count)
        for (delivery, settlement) in settled {
            self.apply(settlement, to: delivery)
            self.continuation.yield((delivery.id, settlement))
        }
    }

    private func apply(_ settlement: Settlement, to delivery: Delivery) {
        guard var row = self.rows[delivery.id], row.leased, row.delivery.leaseToken == delivery.leaseToken else { return }
        row.leased = false
        switch settlement {
        case .done:
            self.rows[delivery.id] = nil
            self.done.append(delivery.id)
        case .retry(let delay, let error):
            row.runAfter = .now + delay
            row.lastError = error
            self.rows[delivery.id] = row
        case .dead(let error):
            row.dead = true
            row.lastError = error
            self.rows[delivery.id] = row
        case .release:
            row.runAfter = .now
            row.delivery.attempt -= 1
            self.rows[delivery.id] = row
        case .leaseLost:
            break
        }
    }

    /// A transaction: settlements are checked against the lease when made and applied at commit.
    private final class Transaction: OutboxTransaction {
        let store: InMemoryOutboxStore
        let batched: Bool
        var settled: [(Delivery, Settlement)] = []

        init(store: InMemoryOutboxStore, batched: Bool) {
            self.store = store
            self.batched = batched
        }

        func run(
            _ delivery: Delivery,
            body: @Sendable (PostgresConnection?) async throws -> Void,
            onFailure: @Sendable (any Error) -> Settlement
        ) async throws -> Settlement {
            var settlement: Settlement
            do {
                try await body(nil)
                settlement = .done
            } catch {
                settlement = onFailure(error)
            }
            // Batched, a delivery marked done is fenced at commit; anything else at once.
            if !(self.batched && settlement == .done), await !self.store.holds(delivery) { settlement = .leaseLost }
            self.settled.append((delivery, settlement))
            return settlement
        }
    }

    func renew(_ deliveries: [Delivery], lease: Duration) async throws -> Set<Int64> {
        var held = Set<Int64>()
        for delivery in deliveries {
            if var row = self.rows[delivery.id], row.leased, row.delivery.leaseToken == delivery.leaseToken {
                row.runAfter = .now + lease
                self.rows[delivery.id] = row
                held.insert(delivery.id)
            }
        }
        self.renewalCount += 1
        self.renewalContinuation.yield((self.renewalCount, deliveries.map(\.id), held))
        return held
    }

    func release(_ deliveries: [Delivery]) async throws {
        for delivery in deliveries {
            if var row = self.rows[delivery.id], row.leased, row.delivery.leaseToken == delivery.leaseToken {
                row.leased = false
                row.runAfter = .now
                row.delivery.attempt -= 1
                self.rows[delivery.id] = row
            }
        }
    }

    /// Declarations and withdrawals of wakefulness, in order ("awake", "withdrawn").
    private(set) var wakefulness: [String] = []

    func declareAwake(owner: String, channel: String, for duration: Duration) async throws {
        self.wakefulness.append("awake")
    }

    /// Nothing here skips a notification (there are none), so every horizon has passed.
    func withdrawAwake(owner: String, channel: String) async throws -> Int64 {
        self.wakefulness.append("withdrawn")
        return 0
    }

    func horizonPassed(_ horizon: Int64) async throws -> Bool { true }

    func secondsUntilNextDue(functions: [FunctionName]) async throws -> Double? {
        let now = ContinuousClock.now
        let future = self.rows.values.filter { !$0.dead && $0.runAfter > now && functions.contains($0.delivery.function) }
        guard let next = future.map(\.runAfter).min() else { return nil }
        let (seconds, attoseconds) = (next - now).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    func tickSchedules(_ schedules: [FunctionName: Schedule], timerFunctions: [FunctionName]) async throws
        -> ScheduleCheck
    {
        ScheduleCheck(ticked: [], secondsUntilNext: nil, pendingTimers: 0)
    }

    func prune(olderThan age: Duration, deadOlderThan deadAge: Duration) async throws -> (done: Int, dead: Int) {
        (0, 0)
    }
}
