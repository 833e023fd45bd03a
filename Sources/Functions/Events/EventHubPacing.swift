import DequeModule

/// When the order event hub reads the log on a schedule rather than on notifications, and with it asks the writers
/// to skip their `NOTIFY` (``M0036EventHubWakefulness``).
///
/// Notified, the hub passes once per notification: right for a trickle (an event is read a round trip after its
/// commit). Under a stream each notification costs its writer a wait for the database-wide lock a `NOTIFY` takes at
/// commit, and the hub passes dozens of times a second anyway (35 a second through the 4,000-ride city, 43rd
/// session). So once `enterAt` passes within a second found new events, the hub passes every `interval` whether
/// notified or not (an event waits at most `interval` for it); once fewer than `enterAt / 2` of the last second's
/// passes found any, it goes back to notifications. The half is the hysteresis: a rate near the threshold does not
/// flip the writers' behaviour at every pass.
struct EventHubPacing {
    /// The interval between passes while paced.
    let interval: Duration
    /// Passes with new events within a second that start the pacing.
    let enterAt: Int
    /// The window the passes are counted in.
    static let window: Duration = .seconds(1)

    /// When the recent passes that found new events ran, oldest first, within ``window``.
    private var found: Deque<ContinuousClock.Instant> = []
    /// Since when passes are paced, `nil` when they are not.
    private(set) var pacedSince: ContinuousClock.Instant?

    init(interval: Duration, enterAt: Int) {
        self.interval = interval
        self.enterAt = enterAt
    }

    /// Whether passes are paced.
    var isPacing: Bool { self.pacedSince != nil }

    /// Records a pass at `now` that found new events or none, and decides whether the next passes are paced.
    mutating func passed(foundEvents: Bool, at now: ContinuousClock.Instant) {
        guard self.interval > .zero, self.enterAt > 0 else { return }
        if foundEvents { self.found.append(now) }
        while let first = self.found.first, now - first > Self.window { self.found.removeFirst() }
        if let since = self.pacedSince {
            // Judged on a whole window of paced passes.
            if now - since >= Self.window && self.found.count < (self.enterAt + 1) / 2 { self.pacedSince = nil }
        } else if self.found.count >= self.enterAt {
            self.pacedSince = now
        }
    }
}
