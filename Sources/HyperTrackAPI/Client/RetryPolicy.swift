/// How the client retries requests that are safe to repeat (GET, PATCH, DELETE, complete, start, stop, undelete).
///
/// It retries on 429 (waiting what `Retry-After` says, up to ``maxRetryAfter``), on 5xx and on transport
/// failures, with exponential backoff and jitter. Creating a trip or a Nearby request is never retried.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, the first included; `1` disables retries.
    public var maxAttempts: Int
    /// The wait before the first retry.
    public var initialBackoff: Duration
    /// The longest wait between attempts.
    public var maxBackoff: Duration
    /// Each wait is the previous one times this.
    public var multiplier: Double
    /// A random share (0...1) taken off each wait, so clients do not retry in lockstep.
    public var jitter: Double
    /// A `Retry-After` longer than this is not waited for: the 429 is returned to the caller.
    public var maxRetryAfter: Duration

    /// Creates a policy.
    /// - Parameters:
    ///   - maxAttempts: Attempts in total, at least 1.
    ///   - initialBackoff: The first wait.
    ///   - maxBackoff: The longest wait.
    ///   - multiplier: Growth of the wait per attempt.
    ///   - jitter: Random share taken off each wait, 0...1.
    ///   - maxRetryAfter: The longest `Retry-After` honoured.
    public init(
        maxAttempts: Int = 4,
        initialBackoff: Duration = .milliseconds(200),
        maxBackoff: Duration = .seconds(10),
        multiplier: Double = 2,
        jitter: Double = 0.2,
        maxRetryAfter: Duration = .seconds(60)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.multiplier = max(1, multiplier)
        self.jitter = min(1, max(0, jitter))
        self.maxRetryAfter = maxRetryAfter
    }

    /// No retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait before retry number `retry` (1 for the first retry).
    func backoff(beforeRetry retry: Int) -> Duration {
        var wait = self.initialBackoff
        for _ in 1..<max(1, retry) where wait < self.maxBackoff {
            wait = wait * self.multiplier
        }
        wait = min(wait, self.maxBackoff)
        return wait * (1 - Double.random(in: 0...self.jitter))
    }
}
