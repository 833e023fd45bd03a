/// When the dispatcher may claim next, and so whether writers need to wake it (``Wakefulness``).
///
/// Claims that find several deliveries mean a stream or a backlog; after two of those in a row (or once claims that
/// found work reach `enterAt` within a ``window``: a stream woken one delivery per notification), claims are *paced*:
/// the worker claims every `interval` whether notified or not, so each claim takes what gathered meanwhile (one claim
/// and one transaction for several deliveries instead of one each), and a full claim (a backlog) is followed by
/// another at once. Pacing ends when in a whole window of paced claims fewer than `enterAt / 2` found work, and more
/// found none: the stream has thinned out. The half is the hysteresis, so a rate near the threshold does not flip the
/// writers' behaviour at every claim. The second condition keeps a worker behind slow handlers paced (its claims are
/// rare because its queue is full, and each finds work); it is a comparison, not a count of empty claims, because on
/// a loaded machine paced claims can be fewer than ten a second.
///
/// **Why a window and not the next claim.** Pacing used to end at the first claim that found one delivery or none,
/// or a full batch. Through the 4,000-ride city (55th session, BENCHMARKS.md) that happened several times a second:
/// a claim limited by the queue's room came back full, or a 10 ms gap in a stream of a few hundred deliveries a
/// second left one. Each time the worker withdrew its declaration and every writer notified again until the next two
/// claims: the worker withdrew 876 times in 396 s of rides (run J1, every `pg_notify` logged) and was declared about
/// a sixth of the time, and its writers' notifications (47,868) were two thirds of all those (71,327) that queued on
/// the database-wide lock a `NOTIFY` takes at commit. Judged over a window (run Kd2): 14 withdrawals, 3,274.
struct ClaimPacing {
    /// The interval between paced claims; zero never paces.
    var interval: Duration
    /// Claims that found work within a ``window`` that start the pacing.
    var enterAt: Int
    /// The window claims are counted in.
    static let window: Duration = .seconds(1)
    /// Claims that found work within a window that start the pacing by default: a stream of 20 notifications a
    /// second, as for the order event hub (``EventHubPacing`` in Functions).
    static let defaultEnterAt = 20

    private var streak = 0
    private var last: ContinuousClock.Instant?
    private var lastWasFull = false
    /// The current window's start and how many of its claims found work.
    private var windowStart: ContinuousClock.Instant?
    private var foundInWindow = 0
    private var emptyInWindow = 0
    /// Since when claims are paced, `nil` when they are not.
    private(set) var pacedSince: ContinuousClock.Instant?

    init(interval: Duration, enterAt: Int = Self.defaultEnterAt) {
        self.interval = interval
        self.enterAt = enterAt
    }

    /// Records a claim that started at `start` and took `count` of the `limit` it asked for.
    mutating func claimed(_ count: Int, of limit: Int, at start: ContinuousClock.Instant) {
        self.last = start
        self.lastWasFull = count >= limit
        guard self.interval > .zero else { return }
        // A window closes at the first claim after it: judged whole, paced through it or not.
        if let windowStart = self.windowStart, start - windowStart >= Self.window {
            if let since = self.pacedSince {
                let half = (self.enterAt + 1) / 2
                if since <= windowStart && self.foundInWindow < half && self.emptyInWindow > self.foundInWindow {
                    self.pacedSince = nil
                    self.streak = 0
                }
            } else if self.foundInWindow >= self.enterAt && start - windowStart < Self.window * 2 {
                self.pacedSince = start
            }
            self.windowStart = nil
        }
        if self.windowStart == nil {
            self.windowStart = start
            self.foundInWindow = 0
            self.emptyInWindow = 0
        }
        if count > 0 { self.foundInWindow += 1 } else { self.emptyInWindow += 1 }
        // Several, or as many as there was room for (a full queue's one).
        self.streak = count >= 2 || (count > 0 && count >= limit) ? self.streak + 1 : 0
        if self.pacedSince == nil && self.streak >= 2 { self.pacedSince = start }
    }

    /// Whether claims are paced (the worker claims every `interval`, or at once after a full claim, whether notified
    /// or not): then writers need not notify.
    var isPacing: Bool { self.pacedSince != nil }

    /// The earliest time of the next claim, or `nil` for "at once" (not paced: at the next notification or poll).
    var nextClaim: ContinuousClock.Instant? {
        guard self.isPacing, !self.lastWasFull, let last = self.last else { return nil }
        return last + self.interval
    }
}
