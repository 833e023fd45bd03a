import Foundation

/// Scheduled attempts, a delivery held back by a reorder fault, and the log.
struct WebhookQueue: Sendable {
    var random: SplitMix64
    var scheduled: [PendingAttempt] = []
    var held: (attempt: PendingAttempt, heldAt: Date)?
    var log: [WebhookDelivery] = []
    /// Real milliseconds from sending each answered attempt to its reply's end, in attempt order: the receiver's
    /// acknowledgement latency as the sender sees it (`GET /_emulator/webhooks/round-trips`).
    var roundTrips: [Double] = []
    /// Every attempt's outcome, counted (`GET /_emulator/webhooks/outcomes`): the log is trimmed in a long run, these
    /// are not, so a tool can tell at the end whether any delivery was refused (4xx) or given up on.
    var outcomes: [WebhookDelivery.Outcome: Int] = [:]

    init(seed: UInt64) { self.random = SplitMix64(seed: seed ^ 0x5745_4248_4F4F_4B53) }

    mutating func schedule(_ attempt: PendingAttempt) {
        scheduled.append(attempt)
        if let held {
            self.held = nil
            var released = held.attempt
            released.dueAt = attempt.dueAt
            scheduled.append(released)
        }
    }

    /// Removes and returns the attempts due at `time`, in scheduling order.
    mutating func takeDue(at time: Date) -> [PendingAttempt] {
        let due = scheduled.filter { $0.dueAt <= time }
        scheduled.removeAll { $0.dueAt <= time }
        return due
    }
}
