/// Per-function delivery policy: attempts, timeout and retry backoff.
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

    /// Creates options; every parameter has the documented default.
    public init(
        maxAttempts: Int = 8,
        timeout: Duration = .seconds(30),
        initialBackoff: Duration = .milliseconds(500),
        maximumBackoff: Duration = .seconds(300),
        jitter: Double = 0.2
    ) {
        self.maxAttempts = maxAttempts
        self.timeout = timeout
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.jitter = jitter
    }
}
