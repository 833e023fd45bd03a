/// Per-function delivery policy: attempts, timeout, retry backoff and priority.
public struct FunctionOptions: Sendable, Hashable {
    /// Attempts before a delivery is dead-lettered (the first attempt counts). Default 8.
    public var maxAttempts: Int
    /// How long one attempt may run before it is cancelled and counted as failed. Default 30 s.
    public var timeout: Duration
    /// Delay before the first retry. Default 500 ms; doubles each retry (with jitter) up to `maximumBackoff`.
    public var initialBackoff: Duration
    /// The longest delay between two attempts. Default 5 minutes.
    public var maximumBackoff: Duration
    /// Fraction of each delay that is randomised, 0...1. Default 0.2.
    public var jitter: Double
    /// Whether the function's deliveries go ahead of the others. Default `.normal`.
    public var priority: Priority

    /// How a worker orders a function's deliveries against the others'.
    ///
    /// A worker claims and runs in commit order (per document, always). Under a backlog that puts a function whose
    /// latency a person feels (offering a booked ride to drivers) behind hundreds of deliveries nobody waits for
    /// (trip summaries from HyperTrack). `.high` deliveries are claimed before the others and run before anything
    /// already queued, and a transaction that runs one commits after it rather than batching more behind it. The
    /// order of one document's deliveries of one function is unchanged.
    ///
    /// First, not only: a quarter of each claim is kept for the other functions' deliveries when they are due, and
    /// lanes take one of them after three high-priority ones in a row. Strictly first starved them: in the 16th
    /// session's chaos run (10,000 drivers, 20 bookings a second) 10,000 orders waited for a driver, their
    /// dispatch rounds filled every claim of both workers, and `updateOrderStatus` and `onTripWebhook` (the trips
    /// that move a ride on) ran not once in nine minutes; no ride finished.
    ///
    /// `.elevated` is a tier between: behind `.high`, ahead of `.normal`, with the same rules between each tier and
    /// those after it (a quarter of what a claim has left kept for them, one of them after three in a row), and its
    /// deliveries commit alone too. It is for work a person waits on that must not slow the `.high` tier: in the
    /// 48th session's city run, arrivals (`onTripWebhook`) at `.high` reached `REACHED_*` at once but made the
    /// offers a third slower, since their 13,000 deliveries took the dispatch functions' lanes. Elevated instead
    /// (49th session, three runs against two, alternated), arrival → `REACHED_*` p50 0.64-0.72 s against
    /// 12.5-16.3 s, the offer p50 360-461 ms against 344-351 ms. Tiers only choose who waits on a saturated
    /// machine: the normal tier (`updateOrderStatus` among it) waited longer. Elevated deliveries batched like
    /// normal ones, with `updateOrderStatus` elevated as well, took the arrivals back to 15.6 s (BENCHMARKS.md).
    public enum Priority: Sendable, Hashable, CaseIterable {
        case normal
        case elevated
        case high

        /// The tier's place in a worker's order: 0 first.
        var tier: Int {
            switch self {
            case .high: 0
            case .elevated: 1
            case .normal: 2
            }
        }

        /// How many tiers there are.
        static var tiers: Int { Self.allCases.count }
    }

    /// Creates options; every parameter has the documented default.
    public init(
        maxAttempts: Int = 8,
        timeout: Duration = .seconds(30),
        initialBackoff: Duration = .milliseconds(500),
        maximumBackoff: Duration = .seconds(300),
        jitter: Double = 0.2,
        priority: Priority = .normal
    ) {
        self.maxAttempts = maxAttempts
        self.timeout = timeout
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.jitter = jitter
        self.priority = priority
    }
}
