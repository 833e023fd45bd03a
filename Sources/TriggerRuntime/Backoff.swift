/// Retry delays: exponential from `initialBackoff`, capped at `maximumBackoff`, with a random part of `jitter`.
package enum Backoff {
    /// The delay before the attempt after `attempt` (1 = the first attempt failed).
    /// - Parameters:
    ///   - attempt: The attempt that just failed, from 1.
    ///   - options: The function's options.
    ///   - random: A value in `0..<1` (injectable for tests).
    package static func delay(afterAttempt attempt: Int, options: FunctionOptions, random: Double) -> Duration {
        let initial = max(options.initialBackoff.secondsValue, 0)
        let maximum = max(options.maximumBackoff.secondsValue, initial)
        let exponent = Double(min(max(attempt - 1, 0), 62))
        let base = min(initial * pow2(exponent), maximum)
        let jitter = min(max(options.jitter, 0), 1)
        // The delay is `base` with its last `jitter` fraction randomised: [base·(1-jitter), base].
        let seconds = base * (1 - jitter * random)
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// Whether a delivery whose attempt `attempt` failed must be dead-lettered.
    package static func isExhausted(attempt: Int, options: FunctionOptions) -> Bool {
        attempt >= max(options.maxAttempts, 1)
    }

    private static func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        var remaining = Int(exponent)
        while remaining > 0 && value < 1e12 {
            value *= 2
            remaining -= 1
        }
        return value
    }
}

extension Duration {
    var secondsValue: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// An error that says how long the failed call's service asked to be left alone (HTTP's `Retry-After`): the
/// runtime schedules the next attempt no sooner than that, even when the function's backoff would retry earlier.
/// A 429 with `Retry-After: 600` retried after 2 s would only be refused again and spend an attempt.
public protocol RetryAfterHinting: Error {
    /// The wait the service asked for, if it did.
    var retryAfter: Duration? { get }
}
