import Synchronization

/// Wakes the run loop: rung by notifications, finished handlers, reconnects and shutdown. Rings are not counted:
/// any number of rings while nobody waits wake the next wait once.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    init() {}

    /// Wakes the current or next waiter.
    func ring() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.rung = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns when rung (now, if rung since the last wait), after `timeout`, or when cancelled.
    func wait(timeout: Duration) async {
        guard timeout > .zero else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitForRing() }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForRing() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = self.state.withLock { state -> Bool in
                    if state.rung {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            self.ring()
        }
    }
}
