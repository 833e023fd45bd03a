import Foundation
import Synchronization

/// A child process's exit (for tests and tools that spawn this package's binaries), delivered by `Process.terminationHandler` (installed before `run()`, so a fast exit is
/// not missed). `Process.waitUntilExit()` spins a run loop on the calling thread and was seen to never return
/// for a child that had exited while other tests spawned processes.
public final class ProcessExit: Sendable {
    /// The process did not exit in time.
    public struct TimedOut: Error, CustomStringConvertible {
        public var description: String
    }
    private struct State {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }
    private let state = Mutex(State())

    /// Installs the handler on `process`; call before `process.run()`.
    public init(observing process: Process) {
        process.terminationHandler = { [self] process in
            let status = process.terminationStatus
            let waiters = self.state.withLock { state in
                state.status = status
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }
    }

    /// The exit status (the signal number for a killed process); throws after `timeout`.
    public func status(timeout: Duration = .seconds(120), _ what: String) async throws -> Int32 {
        try await withThrowingTaskGroup(of: Int32.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let status = self.state.withLock { state -> Int32? in
                        if state.status == nil { state.waiters.append(continuation) }
                        return state.status
                    }
                    if let status { continuation.resume(returning: status) }
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TimedOut(description: "\(what) did not exit within \(timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }
}
