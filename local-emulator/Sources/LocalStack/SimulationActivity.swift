import Synchronization

/// What a simulation is waiting on right now: every request, query, stream and phase registers itself while it
/// runs, so that a run that stops making progress can say which awaits are stuck and for how long.
///
/// Why: the chaos test hung in three of six CI runs (11th session) with its stack alive and idle, and nothing in
/// the process said where; gdb shows parked threads, not suspended tasks. A run past its bound now ends with this
/// list (``CitySimulation/run()``), and `simulate`'s progress line names what has waited longest.
public final class SimulationActivity: Sendable {
    private struct State {
        var next = 0
        var running: [Int: (label: String, since: ContinuousClock.Instant)] = [:]
    }
    private let state = Mutex(State())

    public init() {}

    /// Runs `body`, registered under `label` while it runs.
    func during<T>(_ label: String, _ body: () async throws -> T) async rethrows -> T {
        let id = self.state.withLock { state in
            state.next += 1
            state.running[state.next] = (label, .now)
            return state.next
        }
        defer { _ = self.state.withLock { $0.running.removeValue(forKey: id) } }
        return try await body()
    }

    /// What has run longer than `age`, oldest first, same labels counted together: `label ×n, the oldest for 12 s`.
    public func waiting(longerThan age: Duration = .zero) -> [String] {
        let now = ContinuousClock.now
        let running = self.state.withLock { $0.running.values }.filter { now - $0.since >= age }
        let byLabel = Dictionary(grouping: running, by: \.label)
        return byLabel.map { label, entries in
            let oldest = entries.map(\.since).min() ?? now
            return (label, entries.count, now - oldest)
        }
        .sorted { $0.2 > $1.2 }
        .map { label, count, age in
            "\(label) ×\(count), the oldest for \(Int(CitySimulation.seconds(age))) s"
        }
    }
}
