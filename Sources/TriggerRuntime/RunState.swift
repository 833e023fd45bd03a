import Synchronization

/// The mutable state of one `TriggerRuntime.run()`: deliveries in flight, and the shutdown phase.
final class RunState: Sendable {
    private struct State {
        var inFlight: [Int64: Delivery] = [:]
        var draining = false
        var abandoned = false
    }
    private let state = Mutex(State())
    /// Rung by notifications, finished handlers, reconnects and shutdown.
    let doorbell = Doorbell()

    init() {}

    var inFlightCount: Int { self.state.withLock { $0.inFlight.count } }
    var inFlight: [Delivery] { self.state.withLock { Array($0.inFlight.values) } }
    /// Graceful shutdown began: claim nothing more.
    var isDraining: Bool { self.state.withLock { $0.draining } }
    /// The grace period ran out: handlers still running are cancelled and their deliveries handed back.
    var isAbandoned: Bool { self.state.withLock { $0.abandoned } }

    func start(_ delivery: Delivery) {
        self.state.withLock { $0.inFlight[delivery.id] = delivery }
    }

    func finish(_ delivery: Delivery) {
        self.state.withLock { _ = $0.inFlight.removeValue(forKey: delivery.id) }
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
