import Foundation

/// Scheduled attempts, a delivery held back by a reorder fault, and the log.
struct WebhookQueue: Sendable {
    var random: SplitMix64
    var scheduled: [PendingAttempt] = []
    var held: (attempt: PendingAttempt, heldAt: Date)?
    var log: [WebhookDelivery] = []
    /// Each answered attempt's real time from its sending to its reply's end (``RoundTrip``: as the stepper saw it and
    /// on the wire), in attempt order: the receiver's acknowledgement latency as the sender sees it
    /// (`GET /_emulator/webhooks/round-trips`).
    var roundTrips: [RoundTrip] = []
    /// Every attempt's outcome, counted (`GET /_emulator/webhooks/outcomes`): the log is trimmed in a long run, these
    /// are not, so a tool can tell at the end whether any delivery was refused (4xx) or given up on.
    var outcomes: [WebhookDelivery.Outcome: Int] = [:]
    /// The events of every delivered attempt, counted by type (`GET /_emulator/webhooks/events`): what the receiver
    /// acknowledged, whatever it chose to keep, so a load tool can tell how many locations it took in.
    var deliveredEvents: [String: Int] = [:]

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

    /// Appends the events of `body` (a JSON array of `eventCount` events) to the newest scheduled attempt when it
    /// is a joinable first attempt due at `time` with room for them under `limit` events; `false` (nothing changed)
    /// otherwise.
    ///
    /// **Why.** Each API call that makes a phone report at once (start tracking, a device placed) produced its own
    /// delivery of one or two events, sent one after another at the next step: at 10,000 phones the city's set-up
    /// sent 10,000 deliveries in turn (~30 ms each on a loaded 2-core machine), the steps (and so the emulated
    /// clock) stood still behind them for five minutes, and the rides began with every position minutes old
    /// (17th session). Events produced at one instant travel together, as a tick's do.
    mutating func join(_ body: [UInt8], eventCount: Int, types: [String], dueAt time: Date, limit: Int) -> Bool {
        guard held == nil, let last = scheduled.indices.last else { return false }
        let open = scheduled[last]
        guard open.joinable, open.attempt == 1, open.dueAt == time, open.eventCount + eventCount <= limit,
            open.body.last == UInt8(ascii: "]"), body.first == UInt8(ascii: "["), body.count > 2
        else { return false }
        scheduled[last].body.removeLast()
        scheduled[last].body.append(UInt8(ascii: ","))
        scheduled[last].body.append(contentsOf: body.dropFirst())
        scheduled[last].eventCount += eventCount
        scheduled[last].eventTypes += types
        return true
    }

    /// Removes and returns the attempts due at `time`, in scheduling order.
    mutating func takeDue(at time: Date) -> [PendingAttempt] {
        let due = scheduled.filter { $0.dueAt <= time }
        scheduled.removeAll { $0.dueAt <= time }
        return due
    }
}

/// An answered attempt's acknowledgement, timed twice.
struct RoundTrip: Sendable {
    /// As the stepper's task saw it: from before the send to after its return (the emulator's own wait to resume
    /// the task included).
    var milliseconds: Double
    /// On the wire (``WireTiming``: the request's head written → the reply's end read, on the connection's event
    /// loop).
    var wireMilliseconds: Double
}
