import NIOCore
import NIOPosix
import Synchronization

/// Wakes the run loop: rung by notifications, finished handlers, reconnects and shutdown. Rings are not counted:
/// any number of rings while nobody waits wake the next wait once. One waiter at a time (the dispatcher; in Functions,
/// the order event hub's pump).
///
/// A wait is one continuation and one timer on a NIO event loop: a ring resumes the waiter directly. (A task group
/// racing a sleeping child against the ring cost two tasks per wait and a hop more before the claim.)
package final class Doorbell: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, Never>
        var timer: Scheduled<Void>?
    }
    private struct State {
        var rung = false
        var waiter: Waiter?
        var lastID: UInt64 = 0
        /// A wait cancelled before its continuation was installed.
        var cancelledID: UInt64?
    }
    private let state = Mutex(State())

    package init() {}

    /// Wakes the current or next waiter.
    package func ring() {
        let waiter = self.state.withLock { state -> Waiter? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        Self.resume(waiter)
    }

    /// Forgets a ring nobody waited for yet (what it asked for is about to be done anyway).
    package func clear() {
        self.state.withLock { $0.rung = false }
    }

    /// Returns when rung (now, if rung since the last wait), after `timeout`, or when cancelled.
    package func wait(timeout: Duration) async {
        guard timeout > .zero else { return }
        let id = self.state.withLock { state -> UInt64 in
            state.lastID &+= 1
            return state.lastID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = self.state.withLock { state -> Bool in
                    if state.rung || state.cancelledID == id {
                        state.rung = false
                        return true
                    }
                    state.waiter = Waiter(id: id, continuation: continuation)
                    return false
                }
                if now {
                    continuation.resume()
                    return
                }
                let timer = NIOSingletons.posixEventLoopGroup.any().scheduleTask(in: .init(timeout)) {
                    self.end(id, cancelled: false)
                }
                let late = self.state.withLock { state -> Bool in
                    guard state.waiter?.id == id else { return true }
                    state.waiter?.timer = timer
                    return false
                }
                if late { timer.cancel() }
            }
        } onCancel: {
            self.end(id, cancelled: true)
        }
    }

    /// Ends wait `id` if it is still waiting (timed out or cancelled).
    private func end(_ id: UInt64, cancelled: Bool) {
        let waiter = self.state.withLock { state -> Waiter? in
            guard let waiter = state.waiter, waiter.id == id else {
                if cancelled { state.cancelledID = id }
                return nil
            }
            state.waiter = nil
            return waiter
        }
        Self.resume(waiter)
    }

    private static func resume(_ waiter: Waiter?) {
        guard let waiter else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume()
    }
}

extension TimeAmount {
    /// `duration`, saturated at the largest amount NIO can schedule.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self = .nanoseconds(nanoseconds.overflow ? .max : nanoseconds.partialValue &+ attoseconds / 1_000_000_000)
    }
}
