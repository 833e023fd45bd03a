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

    /// Returns as soon as `predicate` holds for the entries; throws if it still does not after `timeout`.
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
                try await withCheckedThrowingContinuation { continuation in
                    let now = self.state.withLock { state -> Bool in
                        if predicate(state.entries) { return true }
                        state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                        return false
                    }
                    if now { continuation.resume() }
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
                let timedOut = TimedOut(description: "timed out waiting for \(what) (\(self.entries.count) entries)")
                waiter?.continuation.resume(throwing: timedOut)
                throw timedOut
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
