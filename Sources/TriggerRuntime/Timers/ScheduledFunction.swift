import Foundation

/// A function run on a schedule: every fixed interval or on a cron expression (UTC).
///
/// Exactly one worker runs each tick however many workers run the function: a tick is a delivery inserted in the
/// transaction that advances the schedule's row, which is picked `FOR UPDATE SKIP LOCKED` (a second worker skips
/// it, or finds it no longer due). Ticks of one schedule run one after another (their document key is the
/// function's name). Missed ticks are coalesced into one run: see ``Schedule``.
///
/// ```swift
/// struct SweepStaleDrivers: ScheduledFunction {
///     static let name: FunctionName = "sweepStaleDrivers"
///     static let schedule = Schedule.cron("*/5 * * * *")
///     func run(_ tick: ScheduleTick, context: FunctionContext) async throws { … }
/// }
/// ```
public protocol ScheduledFunction: Sendable {
    /// The persisted name. Never derive it from the type's name.
    static var name: FunctionName { get }
    /// When it runs.
    static var schedule: Schedule { get }
    /// Attempts, timeout and backoff. Defaults to `FunctionOptions()`.
    static var options: FunctionOptions { get }
    /// Runs one tick. Throwing (or exceeding the timeout) schedules a retry of this tick.
    func run(_ tick: ScheduleTick, context: FunctionContext) async throws
}

extension ScheduledFunction {
    public static var options: FunctionOptions { FunctionOptions() }
}

/// One run of a schedule.
public struct ScheduleTick: Sendable, Hashable, Codable {
    /// The tick's instant; after downtime, the earliest of the coalesced ticks.
    public var scheduledAt: Date
    /// How many ticks this run stands for: 1, or more after downtime (see ``Schedule``).
    public var coalesced: Int

    /// Creates a tick.
    /// - Parameters:
    ///   - scheduledAt: The tick's instant.
    ///   - coalesced: How many ticks it stands for.
    public init(scheduledAt: Date, coalesced: Int = 1) {
        self.scheduledAt = scheduledAt
        self.coalesced = coalesced
    }

    enum CodingKeys: String, CodingKey {
        case scheduledAt = "scheduled_at"
        case coalesced
    }

    /// The part of a tick's `new_row` the worker reads (the instant is the delivery's `committed_at`).
    struct Coalesced: Decodable {
        var coalesced: Int
    }
}
