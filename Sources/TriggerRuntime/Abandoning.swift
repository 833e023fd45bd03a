import Synchronization

/// Runs `body` in a task of its own and returns what it returns, or throws `timedOut()` after `timeout` (and
/// `CancellationError` when the caller is cancelled) without waiting for `body` to end: it is cancelled and left to
/// finish on its own.
///
/// Why not a task group: a group waits for all its children, so a timeout in one cannot end a wait that ignores
/// cancellation (a postgres-nio future that is never completed, say). This is for the few awaits whose hang would
/// stop a whole run; an abandoned `body` must own nothing the caller still uses.
package func abandoning<T: Sendable>(
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
