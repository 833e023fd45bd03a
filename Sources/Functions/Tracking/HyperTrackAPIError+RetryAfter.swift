import HyperTrackAPI
import TriggerRuntime

/// A 429 or 503 whose `Retry-After` the client did not wait for (longer than its `maxRetryAfter`) reaches the
/// runtime, which then schedules the function's next attempt no sooner than HyperTrack asked.
extension HyperTrackAPIError: RetryAfterHinting {}

extension FunctionOptions {
    /// The policy of functions that call HyperTrack: 30 attempts, backing off from 1 s to 5 minutes, about 1.8 hours
    /// in all (1 + 2 + … + 256 s, then 21 × 300 s), so a HyperTrack outage of an hour delays the ride but loses
    /// nothing; the default (8 attempts, about a minute) dead-lettered the leg's trip during any outage longer than
    /// that.
    public static var hyperTrackCalls: FunctionOptions {
        FunctionOptions(maxAttempts: 30, initialBackoff: .seconds(1), maximumBackoff: .seconds(300))
    }
}
