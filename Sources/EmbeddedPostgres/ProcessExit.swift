import Foundation
import Synchronization

/// A child process's exit (for tests and tools that spawn this package's binaries), delivered by
/// `Process.terminationHandler` (installed before `run()`, so a fast exit is not missed) or by `waitpid` on a thread
/// for a child started by ``Spawn``. `Process.waitUntilExit()` spins a run loop on the calling thread and was seen to
/// never return for a child that had exited while other tests spawned processes.
public final class ProcessExit: Sendable {
    /// The process did not exit in time.
    public struct TimedOut: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }
    private struct State {
        var status: Int32?
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Int32?, Never>] = [:]
    }
    private let state = Mutex(State())

    /// Installs the handler on `process`; call before `process.run()`.
    public init(observing process: Process) {
        process.terminationHandler = { [self] process in self.settle(process.terminationStatus) }
    }

    /// Reaps `pid` (a child started by ``Spawn``) on a thread of its own, where `waitpid` may block as long as the
    /// child lives; the status as ``Spawn/decode(_:)`` gives it.
    public init(waitingFor pid: pid_t) {
        Thread.detachNewThread { [self] in self.settle(Spawn.decode(Spawn.wait(pid))) }
    }

    private func settle(_ status: Int32) {
        let waiters = self.state.withLock { state in
            state.status = status
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }

    /// The exit status if the process has exited.
    public var exited: Int32? { self.state.withLock { $0.status } }

    /// The exit status (the signal number for a killed process); throws after `timeout`.
    ///
    /// The wait itself answers cancellation: a test's CI run once hung for an hour in a wait whose timeout had
    /// fired, because the task group the timeout lives in waits for every child and the continuation of a process
    /// that never exited was never resumed.
    public func status(timeout: Duration = .seconds(120), _ what: String) async throws -> Int32 {
        try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask { await self.next() }
            group.addTask {
                // The deadline itself: this sleep is the clock of the timeout, not a wait for an outcome.
                try await Task.sleep(for: timeout)
                throw TimedOut(description: "\(what) did not exit within \(timeout)")
            }
            defer { group.cancelAll() }
            guard let status = try await group.next()! else { throw CancellationError() }
            return status
        }
    }

    /// The status, or nil once the waiting task is cancelled.
    private func next() async -> Int32? {
        let id = self.state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
                let status = self.state.withLock { state -> Int32?? in
                    if let status = state.status { return .some(status) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let status { continuation.resume(returning: status) }
            }
        } onCancel: {
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}
