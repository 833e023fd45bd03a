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

/// Runs `body` in a task of its own and returns what it returns, or throws `timedOut()` after `timeout` (and
/// `CancellationError` when the caller is cancelled) without waiting for `body` to end: it is cancelled and left to
/// finish on its own.
///
/// Why not a task group: a group waits for all its children, so a timeout in one cannot end a wait that ignores
/// cancellation (a postgres-nio future that is never completed, say). This is for the few awaits whose hang would
/// stop a whole run; an abandoned `body` must own nothing the caller still uses.
func abandoning<T: Sendable>(
    after timeout: Duration,
    timedOut: @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = OneOutcome<T>()
    let work = Task { try await body() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.set(continuation)
            let timer = Task {
                // The deadline's clock, not a wait for an outcome.
                try await Task.sleep(for: timeout)
                outcome.resume(with: .failure(timedOut()))
                work.cancel()
            }
            Task {
                let result = await work.result
                timer.cancel()
                outcome.resume(with: result)
            }
        }
    } onCancel: {
        work.cancel()
        outcome.resume(with: .failure(CancellationError()))
    }
}

/// The first of several outcomes, delivered to a continuation that may be set after it arrived.
private final class OneOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var outcome: Result<T, any Error>?
        var delivered = false
    }
    private let state = Mutex(State())

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        let ready = self.state.withLock { state -> Result<T, any Error>? in
            guard let outcome = state.outcome, !state.delivered else {
                state.continuation = continuation
                return nil
            }
            state.delivered = true
            return outcome
        }
        if let ready { continuation.resume(with: ready) }
    }

    func resume(with outcome: Result<T, any Error>) {
        let continuation = self.state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            guard let continuation = state.continuation else { return nil }
            state.delivered = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: outcome)
    }
}
