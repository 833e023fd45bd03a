import Foundation

/// When a ``ScheduledFunction`` runs: every fixed interval, or on a cron expression (five fields, UTC).
///
/// Ticks are aligned, not relative to when a worker started: `.every(.seconds(60))` ticks at every whole minute of
/// the Unix epoch, so every worker and every restart agrees on the instants. Catch-up after downtime: the ticks
/// missed while no worker ran are coalesced into ONE run (its ``ScheduleTick/coalesced`` says how many ticks it
/// stands for, its ``ScheduleTick/scheduledAt`` is the earliest missed one), and the next tick is the first
/// aligned instant after that run was started. A schedule that ran 10 000 times to catch up a long outage would
/// only repeat work whose moment has passed.
///
/// ```swift
/// static let schedule = Schedule.cron("*/5 * * * *")   // every five minutes, UTC
/// static let schedule = Schedule.every(.seconds(30))
/// ```
public struct Schedule: Sendable, Hashable, CustomStringConvertible {
    private enum Base: Hashable {
        case every(seconds: Int64)
        case cron(String)
    }
    private let base: Base

    /// Runs every `interval` (whole seconds, at least one), aligned to the Unix epoch.
    /// - Parameter interval: The period; a fraction of a second is rounded down.
    public static func every(_ interval: Duration) -> Schedule {
        Schedule(base: .every(seconds: interval.components.seconds))
    }

    /// Runs at the minutes a five-field cron expression matches, in UTC (see `CronExpression`). A malformed
    /// expression is refused when the function is registered or installed.
    /// - Parameter expression: e.g. `"*/5 * * * *"`.
    public static func cron(_ expression: String) -> Schedule {
        Schedule(base: .cron(expression.trimmingCharacters(in: .whitespaces)))
    }

    /// `every 60s` or `cron */5 * * * *`: what `trigger_runtime.schedules` records and `events schedules` shows.
    public var description: String {
        switch self.base {
        case .every(let seconds): "every \(seconds)s"
        case .cron(let expression): "cron \(expression)"
        }
    }

    /// Throws `invalidRegistration` if the interval is under a second or the cron expression is malformed.
    public func validate() throws {
        switch self.base {
        case .every(let seconds):
            guard seconds >= 1 else {
                throw TriggerRuntimeError(.invalidRegistration, "a schedule's interval must be at least 1 s")
            }
        case .cron(let expression):
            _ = try CronExpression(expression)
        }
    }

    /// The first tick strictly after `date`.
    /// - Parameter date: Usually the database's `now()`.
    public func next(after date: Date) throws -> Date {
        switch self.base {
        case .every(let seconds):
            try self.validate()
            let period = Double(seconds)
            return Date(timeIntervalSince1970: (floor(date.timeIntervalSince1970 / period) + 1) * period)
        case .cron(let expression):
            guard let next = try CronExpression(expression).next(after: date) else {
                throw TriggerRuntimeError(.invalidRegistration, "cron expression \"\(expression)\" never matches")
            }
            return next
        }
    }

    /// How many ticks fall in `first...last` (`first` itself a tick), counting at most `limit`.
    func ticks(from first: Date, through last: Date, limit: Int = 100_000) throws -> Int {
        guard first <= last else { return 0 }
        switch self.base {
        case .every(let seconds):
            let count = Int(last.timeIntervalSince(first) / Double(max(seconds, 1))) + 1
            return min(count, limit)
        case .cron:
            var count = 1
            var tick = first
            while count < limit {
                tick = try self.next(after: tick)
                if tick > last { break }
                count += 1
            }
            return count
        }
    }
}
