import Foundation
import Metrics

/// The runtime's metrics. Dimensions are bounded: the function name and the outcome.
///
/// - `trigger.captured` (counter, `function`): deliveries this worker claimed for their first attempt.
/// - `trigger.invocations` (counter, `function`, `outcome` = handled, retried, dead, released, lease_lost, error).
/// - `trigger.invocation.duration` (timer, `function`): handler run time, transaction included.
/// - `trigger.lag` (timer, `function`): from the writing transaction's `now()` to the handler's start; for a timer
///   from its due time, for a tick from its scheduled instant (their lateness).
/// - `trigger.timers.scheduled` (counter, `function`): timers written by this process's ``PostgresTimers``
///   (counted when the statement ran: a transaction rolled back later still counted).
/// - `trigger.timers.fired` (counter, `function`): timers this worker claimed for their first attempt.
/// - `trigger.timers.pending` (gauge): timers waiting for their due time, of this worker's functions, as of its
///   last schedule check (at most a poll interval old).
/// - `trigger.schedule.ticks` (counter, `function`): ticks this worker inserted (one per tick fleet-wide).
enum RuntimeMetrics {
    static func claimed(_ delivery: Delivery) {
        let dimensions = [("function", delivery.function.rawValue)]
        if delivery.attempt == 1 {
            Counter(label: "trigger.captured", dimensions: dimensions).increment()
            if delivery.operation == .timer {
                Counter(label: "trigger.timers.fired", dimensions: dimensions).increment()
            }
        }
        let lag = max(Date().timeIntervalSince(delivery.committedAt), 0)
        Metrics.Timer(label: "trigger.lag", dimensions: dimensions).recordNanoseconds(Int64(lag * 1e9))
    }

    static func finished(_ delivery: Delivery, outcome: String, duration: Duration) {
        let function = delivery.function.rawValue
        Counter(label: "trigger.invocations", dimensions: [("function", function), ("outcome", outcome)]).increment()
        Metrics.Timer(label: "trigger.invocation.duration", dimensions: [("function", function)])
            .record(duration: duration)
    }

    static func timerScheduled(_ function: FunctionName, count: Int = 1) {
        Counter(label: "trigger.timers.scheduled", dimensions: [("function", function.rawValue)])
            .increment(by: count)
    }

    static func ticked(_ function: FunctionName) {
        Counter(label: "trigger.schedule.ticks", dimensions: [("function", function.rawValue)]).increment()
    }

    static func pendingTimers(_ count: Int) {
        Gauge(label: "trigger.timers.pending").record(count)
    }
}
