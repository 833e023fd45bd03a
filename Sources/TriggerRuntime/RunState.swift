import DequeModule
import Synchronization

/// The mutable state of one `TriggerRuntime.run()`: deliveries claimed (queued or running), and the shutdown phase.
final class RunState: Sendable {
    private struct State {
        /// Every delivery this worker holds a lease on: queued, running or awaiting its transaction's commit.
        var inFlight: [Int64: Delivery] = [:]
        /// Claimed deliveries no lane has taken yet, in claim order.
        var queue = Deque<Delivery>()
        /// Lanes (transaction loops) running.
        var lanes = 0
        var draining = false
        var abandoned = false
    }
    private let state = Mutex(State())
    /// Rung by notifications, finished handlers, a short queue, reconnects and shutdown.
    let doorbell = Doorbell()
    /// When the queue is this short, a lane taking from it rings the doorbell so the dispatcher claims more.
    let lowWater: Int

    init(lowWater: Int = 1) {
        self.lowWater = lowWater
    }

    var inFlightCount: Int { self.state.withLock { $0.inFlight.count } }
    var inFlight: [Delivery] { self.state.withLock { Array($0.inFlight.values) } }
    var queuedCount: Int { self.state.withLock { $0.queue.count } }
    var laneCount: Int { self.state.withLock { $0.lanes } }
    /// Graceful shutdown began: claim nothing more.
    var isDraining: Bool { self.state.withLock { $0.draining } }
    /// The grace period ran out: handlers still running are cancelled and their deliveries handed back.
    var isAbandoned: Bool { self.state.withLock { $0.abandoned } }

    /// Queues claimed deliveries; returns how many lanes to start (up to `maximumLanes` running in all).
    func enqueue(_ deliveries: [Delivery], maximumLanes: Int) -> Int {
        self.state.withLock { state in
            for delivery in deliveries {
                state.inFlight[delivery.id] = delivery
                state.queue.append(delivery)
            }
            let start = max(0, min(maximumLanes - state.lanes, state.queue.count))
            state.lanes += start
            return start
        }
    }

    /// The next queued delivery for a lane, or `nil` (nothing queued, or draining).
    func next() -> Delivery? {
        let (delivery, short) = self.state.withLock { state -> (Delivery?, Bool) in
            guard !state.draining, let delivery = state.queue.popFirst() else { return (nil, false) }
            return (delivery, state.queue.count < self.lowWater)
        }
        if short { self.doorbell.ring() }
        return delivery
    }

    /// A lane found nothing more to do. Returns `false` (and stays counted) if deliveries were queued meanwhile:
    /// the lane must go on.
    func endLane() -> Bool {
        self.state.withLock { state in
            if !state.draining && !state.queue.isEmpty { return false }
            state.lanes -= 1
            return true
        }
    }

    /// Takes every queued delivery out (shutdown): the caller hands them back.
    func takeQueued() -> [Delivery] {
        self.state.withLock { state in
            let queued = Array(state.queue)
            state.queue.removeAll()
            return queued
        }
    }

    func finish(_ deliveries: some Sequence<Delivery>) {
        self.state.withLock { state in
            for delivery in deliveries { _ = state.inFlight.removeValue(forKey: delivery.id) }
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
