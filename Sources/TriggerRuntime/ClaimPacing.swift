/// When the dispatcher may claim next, and whether it is busy enough that writers need not wake it.
///
/// Claims that find several deliveries but fewer than they asked for mean a steady stream rather than a backlog;
/// after two claims in a row that found several, claims are spaced `interval` apart so each takes what gathered
/// meanwhile (one claim and one transaction for several deliveries instead of one each). A full claim (a backlog)
/// is followed by another at once, and a claim that finds one delivery or none (a trickle slower than one per
/// `interval`, or idle: the next notification should be claimed at once) ends the streak.
///
/// Both a paced stream and a backlog make the worker *busy*: it claims again soon whether notified or not, so it
/// tells the capture triggers to skip their NOTIFY (see ``Wakefulness``). The backlog counts too because that is
/// when writers are most numerous: each NOTIFY takes a database-wide lock through its commit's WAL flush, so with
/// the worker behind and writers notifying, webhook intake fell from 326 to 186 deliveries/s between 4 and 16
/// concurrent writers (issue 19; 92% of the writers' samples waited on `Lock:object`). What it costs: another
/// worker that sleeps meanwhile is not woken for the backlog; it joins at its next poll (`pollInterval`, 1 s by
/// default), finds a full claim, and is busy too from then on.
struct ClaimPacing {
    var interval: Duration
    private var streak = 0
    private var full = false
    private var last: ContinuousClock.Instant?

    init(interval: Duration) {
        self.interval = interval
    }

    /// Records a claim that started at `start` and took `count` of the `limit` it asked for.
    mutating func claimed(_ count: Int, of limit: Int, at start: ContinuousClock.Instant) {
        self.streak = count <= 1 ? 0 : self.streak + 1
        self.full = count >= limit
        self.last = start
    }

    /// Whether claims are spaced (the worker claims every `interval` whether notified or not).
    var isPacing: Bool { self.streak >= 2 && !self.full && self.interval > .zero }

    /// Whether the last claim was full and found several: the worker claims again at once.
    var isBacklogged: Bool { self.streak >= 1 && self.full && self.interval > .zero }

    /// Whether the worker claims again soon without a notification: paced, or behind a backlog.
    var isBusy: Bool { self.isPacing || self.isBacklogged }

    /// The earliest time of the next claim, or `nil` for "at once".
    var nextClaim: ContinuousClock.Instant? {
        guard self.isPacing, let last = self.last else { return nil }
        return last + self.interval
    }
}
