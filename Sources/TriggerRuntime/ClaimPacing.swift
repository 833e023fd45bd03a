/// When the dispatcher may claim next. Claims that find several deliveries but fewer than they asked for mean a
/// steady stream rather than a backlog; after two of those in a row, claims are spaced `interval` apart so each
/// takes what gathered meanwhile (one claim and one transaction for several deliveries instead of one each). A claim
/// that finds one delivery or none (a trickle slower than one per `interval`, or idle: the next notification should
/// be claimed at once) or a full one (a backlog: claim again at once) ends the pacing.
struct ClaimPacing {
    var interval: Duration
    private var streak = 0
    private var last: ContinuousClock.Instant?

    init(interval: Duration) {
        self.interval = interval
    }

    /// Records a claim that started at `start` and took `count` of the `limit` it asked for.
    mutating func claimed(_ count: Int, of limit: Int, at start: ContinuousClock.Instant) {
        self.streak = count <= 1 || count >= limit ? 0 : self.streak + 1
        self.last = start
    }

    /// Whether claims are spaced (the worker claims every `interval` whether notified or not).
    var isPacing: Bool { self.streak >= 2 && self.interval > .zero }

    /// The earliest time of the next claim, or `nil` for "at once".
    var nextClaim: ContinuousClock.Instant? {
        guard self.isPacing, let last = self.last else { return nil }
        return last + self.interval
    }
}
