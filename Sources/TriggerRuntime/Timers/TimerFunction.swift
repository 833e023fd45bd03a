import Foundation

/// A function run when one of its timers falls due.
///
/// Timers are scheduled per document with a key (``TimerScheduling``), inside the caller's transaction. A due
/// timer runs like a delivery: leased, fenced, retried with the function's options and dead-lettered after its last
/// attempt, in order with the other deliveries of its function and document.
///
/// ```swift
/// struct ExpireOffer: TimerFunction {
///     struct Payload: Codable, Sendable { var driverID: UUID }
///     static let name: FunctionName = "expireOffer"
///     func fire(_ timer: TimerFiring<Payload>, context: FunctionContext) async throws { … }
/// }
/// try await timers.schedule(ExpireOffer.self, document: orderID, key: "offer", after: .seconds(20),
///                           payload: .init(driverID: id), on: context.transaction)
/// ```
public protocol TimerFunction: Sendable {
    /// What the scheduler stores with each timer and the handler gets back (JSON in `trigger_runtime.timers`).
    associatedtype Payload: Codable & Sendable
    /// The persisted name. Never derive it from the type's name.
    static var name: FunctionName { get }
    /// Attempts, timeout and backoff. Defaults to `FunctionOptions()`.
    static var options: FunctionOptions { get }
    /// Handles one due timer. Throwing (or exceeding the timeout) schedules a retry.
    func fire(_ timer: TimerFiring<Payload>, context: FunctionContext) async throws
}

extension TimerFunction {
    public static var options: FunctionOptions { FunctionOptions() }
}

/// A timer that fell due.
public struct TimerFiring<Payload: Sendable>: Sendable {
    /// The document the timer was scheduled for.
    public var documentKey: String
    /// The timer's key (unique per function and document).
    public var key: String
    /// When it was due (the handler starts at or after this instant).
    public var dueAt: Date
    /// What was scheduled with it.
    public var payload: Payload

    /// Creates a firing.
    /// - Parameters:
    ///   - documentKey: The document.
    ///   - key: The timer's key.
    ///   - dueAt: When it was due.
    ///   - payload: Its payload.
    public init(documentKey: String, key: String, dueAt: Date, payload: Payload) {
        self.documentKey = documentKey
        self.key = key
        self.dueAt = dueAt
        self.payload = payload
    }
}

/// What `FunctionContext.timer` says about the timer being run.
public struct TimerInfo: Sendable, Hashable {
    /// The timer's key.
    public var key: String
    /// When it was due.
    public var dueAt: Date

    /// Creates the description of a timer.
    /// - Parameters:
    ///   - key: The timer's key.
    ///   - dueAt: When it was due.
    public init(key: String, dueAt: Date) {
        self.key = key
        self.dueAt = dueAt
    }
}
