import Synchronization

/// Things a test saw (handler calls, log messages), and a way to wait until what it expects has happened.
final class Observations<Entry: Sendable>: Sendable {
    struct TimedOut: Error, CustomStringConvertible {
        var description: String
    }
    private struct Waiter {
        var predicate: @Sendable ([Entry]) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var entries: [Entry] = []
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
    }
    private let state = Mutex(State())

    init() {}

    var entries: [Entry] { self.state.withLock { $0.entries } }

    func append(_ entry: Entry) {
        let ready = self.state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.entries.append(entry)
            var ready: [CheckedContinuation<Void, any Error>] = []
            for (id, waiter) in state.waiters where waiter.predicate(state.entries) {
                ready.append(waiter.continuation)
                state.waiters[id] = nil
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns as soon as `predicate` holds for the entries; throws if it still does not after `timeout`, or when
    /// the waiting task is cancelled (so a test's time limit always ends the wait).
    func wait(
        _ what: String,
        timeout: Duration = .seconds(60),
        until predicate: @escaping @Sendable ([Entry]) -> Bool
    ) async throws {
        let id = self.state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        let now = self.state.withLock { state -> Bool in
                            if predicate(state.entries) { return true }
                            state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                            return false
                        }
                        if now { continuation.resume() }
                        // Cancelled before the waiter was stored: the handler below found nothing to resume.
                        if !now && Task.isCancelled { self.fail(id, with: CancellationError()) }
                    }
                } onCancel: {
                    self.fail(id, with: CancellationError())
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                let timedOut = TimedOut(description: "timed out waiting for \(what) (\(self.entries.count) entries)")
                self.fail(id, with: timedOut)
                throw timedOut
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Resumes waiter `id`, if it still waits, with `error`.
    private func fail(_ id: Int, with error: any Error) {
        let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(throwing: error)
    }
}
