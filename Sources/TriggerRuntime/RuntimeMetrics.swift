import Foundation
import Metrics

/// The runtime's metrics. Dimensions are bounded: the function name and the outcome.
///
/// - `trigger.captured` (counter, `function`): deliveries this worker claimed for their first attempt.
/// - `trigger.invocations` (counter, `function`, `outcome` = handled, retried, dead, released, lease_lost, error).
/// - `trigger.invocation.duration` (timer, `function`): handler run time, transaction included.
/// - `trigger.lag` (timer, `function`): from the writing transaction's `now()` to the handler's start.
enum RuntimeMetrics {
    static func claimed(_ delivery: Delivery) {
        let dimensions = [("function", delivery.function.rawValue)]
        if delivery.attempt == 1 {
            Counter(label: "trigger.captured", dimensions: dimensions).increment()
        }
        let lag = max(Date().timeIntervalSince(delivery.committedAt), 0)
        Metrics.Timer(label: "trigger.lag", dimensions: dimensions).recordNanoseconds(Int64(lag * 1e9))
    }

    static func finished(_ delivery: Delivery, outcome: String, duration: Duration) {
        let function = delivery.function.rawValue
        Counter(label: "trigger.invocations", dimensions: [("function", function), ("outcome", outcome)]).increment()
        let (seconds, attoseconds) = duration.components
        Metrics.Timer(label: "trigger.invocation.duration", dimensions: [("function", function)])
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
