import Foundation
import DequeModule
import Synchronization

/// The mutable state of one `TriggerRuntime.run()`: deliveries claimed (queued or running), and the shutdown phase.
final class RunState: Sendable {
    private struct State {
        /// Every delivery this worker holds a lease on: queued, running or awaiting its transaction's commit.
        var inFlight: [Int64: Delivery] = [:]
        /// Deliveries of `inFlight` whose transaction ran its handlers and is committing (see `unheld`).
        var committing: Set<Int64> = []
        /// Claimed deliveries no lane has taken yet, in claim order, one queue per priority tier
        /// (`FunctionOptions.Priority.tier`: the first is taken first).
        var queues = Array(
            repeating: Deque<(delivery: Delivery, queuedAt: ContinuousClock.Instant)>(),
            count: FunctionOptions.Priority.tiers
        )
        /// Each tier's deliveries taken in a row while a later tier's waited (see `urgentRun`).
        var streaks = Array(repeating: 0, count: FunctionOptions.Priority.tiers)

        var queuedCount: Int { self.queues.reduce(0) { $0 + $1.count } }
        /// When the last lane started.
        var laneStarted = ContinuousClock.now
        /// Lanes (transaction loops) running.
        var lanes = 0
        var draining = false
        var abandoned = false
        /// The last claim took as many as it asked for: more is probably due.
        var backlogged = false
        /// See `lowWater`.
        var lowWater = 1
        /// Deliveries finished per second, as of `rateAt` (see `completionRate`).
        var rate = 0.0
        var rateAt = ContinuousClock.now
    }
    private let state = Mutex(State())
    /// The tier of each function whose deliveries go ahead of the others (`FunctionOptions.Priority`); a
    /// function not named is `.normal`.
    let tiers: [FunctionName: Int]
    /// Rung by notifications, finished handlers, a short queue, reconnects and shutdown.
    let doorbell = Doorbell()
    /// Over how long `completionRate` averages.
    static let rateWindow = 0.1
    /// How many deliveries of a tier lanes take in a row while a later tier's are queued before they take one of
    /// the later: urgent work goes first, but never all of it (see `FunctionOptions.Priority`).
    static let urgentRun = 3

    init(priorities: [FunctionName: FunctionOptions.Priority] = [:]) {
        self.tiers = priorities.filter { $0.value != .normal }.mapValues(\.tier)
    }

    /// The function's tier (`FunctionOptions.Priority.tier`).
    func tier(of function: FunctionName) -> Int { self.tiers[function] ?? FunctionOptions.Priority.normal.tier }

    /// Whether the delivery's function goes ahead of the normal ones (its transaction commits after it).
    func isUrgent(_ delivery: Delivery) -> Bool { self.tiers[delivery.function] != nil }

    /// When the queue is this short and the last claim was full, a lane taking from it rings the doorbell so the
    /// dispatcher claims more. (After a claim that was not full, notifications say when more is due.)
    var lowWater: Int {
        get { self.state.withLock { $0.lowWater } }
        set { self.state.withLock { $0.lowWater = max(1, newValue) } }
    }

    /// Deliveries finished per second, recent ones weighing most: every finished delivery adds `1 / rateWindow`,
    /// and the sum decays by `e` every `rateWindow` seconds (at a steady rate it converges to that rate).
    var completionRate: Double {
        self.state.withLock { Self.decayed($0.rate, since: $0.rateAt, to: .now) }
    }

    private static func decayed(
        _ rate: Double,
        since: ContinuousClock.Instant,
        to now: ContinuousClock.Instant
    ) -> Double {
        rate * exp(-(now - since).secondsValue / Self.rateWindow)
    }

    var inFlightCount: Int { self.state.withLock { $0.inFlight.count } }
    var inFlight: [Delivery] { self.state.withLock { Array($0.inFlight.values) } }
    var queuedCount: Int { self.state.withLock { $0.queuedCount } }
    var laneCount: Int { self.state.withLock { $0.lanes } }
    /// Graceful shutdown began: claim nothing more.
    var isDraining: Bool { self.state.withLock { $0.draining } }
    /// The grace period ran out: handlers still running are cancelled and their deliveries handed back.
    var isAbandoned: Bool { self.state.withLock { $0.abandoned } }

    /// Queues claimed deliveries (`full`: the claim took as many as it asked for). Lanes start in
    /// `startLaneIfBehind`.
    func enqueue(_ deliveries: [Delivery], full: Bool) {
        let now = ContinuousClock.now
        self.state.withLock { state in
            state.backlogged = full
            for delivery in deliveries {
                state.inFlight[delivery.id] = delivery
                state.queues[self.tier(of: delivery.function)].append((delivery, now))
            }
        }
    }

    /// Whether to start another lane: yes if deliveries are queued and no lane runs, or if the oldest queued
    /// delivery has waited `delay` and no lane started within `delay` (the running lanes are not keeping up), up to
    /// `maximumLanes`. If not now, `due` is how long until it may be.
    ///
    /// Lanes start one at a time: one lane running deliveries back to back shares one transaction among all of
    /// them, where eight lanes started at once would each commit one or two. Slow handlers still get their lanes
    /// one `delay` after another.
    func startLaneIfBehind(maximumLanes: Int, delay: Duration) -> (start: Bool, due: Duration?) {
        let now = ContinuousClock.now
        return self.state.withLock { state in
            let oldest = state.queues.compactMap { $0.first?.queuedAt }.min()
            guard !state.draining, state.lanes < maximumLanes, let oldest else {
                return (false, nil)
            }
            let waited = now - oldest
            let sinceStart = now - state.laneStarted
            if state.lanes == 0 || (waited >= delay && sinceStart >= delay) {
                state.lanes += 1
                state.laneStarted = now
                return (true, nil)
            }
            return (false, max(delay - waited, delay - sinceStart))
        }
    }

    /// The next queued delivery for a lane, or `nil` (nothing queued, or draining): one of the first tier that has
    /// any, except that after `urgentRun` of a tier in a row one of a later tier goes if any waits (by the same
    /// rule among the later tiers). Taking a tier's delivery starts the earlier tiers' runs anew.
    func next() -> Delivery? {
        let (delivery, short) = self.state.withLock { state -> (Delivery?, Bool) in
            guard !state.draining else { return (nil, false) }
            for tier in state.queues.indices where !state.queues[tier].isEmpty {
                let laterWaiting = state.queues[(tier + 1)...].contains { !$0.isEmpty }
                guard !laterWaiting || state.streaks[tier] < Self.urgentRun else { continue }
                let delivery = state.queues[tier].removeFirst().delivery
                state.streaks[tier] = laterWaiting ? state.streaks[tier] + 1 : 0
                for earlier in 0..<tier { state.streaks[earlier] = 0 }
                return (delivery, state.backlogged && state.queuedCount < state.lowWater)
            }
            return (nil, false)
        }
        if short { self.doorbell.ring() }
        return delivery
    }

    /// A lane found nothing more to do. Returns `false` (and stays counted) if deliveries were queued meanwhile:
    /// the lane must go on.
    func endLane() -> Bool {
        self.state.withLock { state in
            if !state.draining && state.queuedCount > 0 { return false }
            state.lanes -= 1
            return true
        }
    }

    /// Takes every queued delivery out (shutdown): the caller hands them back.
    func takeQueued() -> [Delivery] {
        self.state.withLock { state in
            let queued = state.queues.flatMap { $0.map(\.delivery) }
            for tier in state.queues.indices { state.queues[tier].removeAll() }
            return queued
        }
    }

    /// `deliveries`' transaction ran their handlers and commits now (`finish` ends this).
    func committing(_ deliveries: some Sequence<Delivery>) {
        self.state.withLock { state in
            for delivery in deliveries { state.committing.insert(delivery.id) }
        }
    }

    /// `deliveries`' commit failed before it settled them: they may still run (alone, after a batch's fence).
    func notCommitting(_ deliveries: some Sequence<Delivery>) {
        self.state.withLock { state in
            for delivery in deliveries { state.committing.remove(delivery.id) }
        }
    }

    /// Of `running` (read before a lease renewal), those the renewal did not find `held` that this worker still
    /// runs: leases lost while a handler runs.
    ///
    /// A delivery whose transaction is committing is not one of them: its commit settles it (done, retry, dead),
    /// which takes it off the renewal's rows, and a renewal that reads after that commit but before the lane calls
    /// `finish` does not find it. With one worker that race was 11-20 false "lease lost" warnings in a 4,000-ride
    /// city run (28th session), where the CPU is saturated and lanes resume late.
    func unheld(_ running: [Delivery], held: Set<Int64>) -> [Delivery] {
        self.state.withLock { state in
            running.filter {
                !held.contains($0.id) && state.inFlight[$0.id] != nil && !state.committing.contains($0.id)
            }
        }
    }

    func finish(_ deliveries: some Sequence<Delivery>) {
        let now = ContinuousClock.now
        self.state.withLock { state in
            var count = 0
            for delivery in deliveries {
                _ = state.inFlight.removeValue(forKey: delivery.id)
                state.committing.remove(delivery.id)
                count += 1
            }
            state.rate = Self.decayed(state.rate, since: state.rateAt, to: now) + Double(count) / Self.rateWindow
            state.rateAt = now
        }
        self.doorbell.ring()
    }

    func beginDraining() {
        self.state.withLock { $0.draining = true }
        self.doorbell.ring()
    }

    func abandon() {
        self.state.withLock { $0.abandoned = true }
    }
}
