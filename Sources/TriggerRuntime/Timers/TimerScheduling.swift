import Foundation
import PostgresNIO

/// When a timer is due.
public enum TimerDue: Sendable, Hashable {
    /// At this instant.
    case at(Date)
    /// This long after the scheduling transaction's start (the database's `now()`; the in-memory twin's clock).
    case after(Duration)
}

/// What scheduling a timer does when the function and document already have a pending timer with the same key.
public enum TimerConflict: Sendable, Hashable {
    /// The new due time and payload replace the pending timer's (also when it is due but not yet claimed).
    case replace
    /// The pending timer stays as it is; nothing is written.
    case keep
}

/// Schedules and cancels the timers of ``TimerFunction``s: the boundary between functions and the runtime's timers.
///
/// ``PostgresTimers`` writes in the caller's transaction (a function's `context.transaction`, or the API's own), so
/// a rolled-back transaction schedules and cancels nothing; ``InMemoryTimers`` is its twin for unit tests, with a
/// clock the test moves. A function takes one in its `init`.
public protocol TimerScheduling: Sendable {
    /// Schedules `function`'s timer `key` for `document`.
    /// - Parameters:
    ///   - function: A registered timer function's name.
    ///   - document: The document the timer belongs to; it runs in order with that document's deliveries.
    ///   - key: The timer's key, unique per function and document.
    ///   - due: When it is due.
    ///   - payload: JSON handed to the function (`nil`: JSON `null`).
    ///   - ifExists: Replace or keep a pending timer with the same key.
    ///   - transaction: The transaction to write in (required by ``PostgresTimers``).
    /// - Returns: Whether the timer was written (`false`: `keep` found one pending).
    @discardableResult
    func schedule(
        _ function: FunctionName,
        document: String,
        key: String,
        due: TimerDue,
        payload: Data?,
        ifExists: TimerConflict,
        on transaction: PostgresConnection?
    ) async throws -> Bool

    /// Cancels `function`'s timer `key` for `document`, pending or due but not yet claimed (a timer already
    /// running or retrying is not cancelled).
    /// - Parameters:
    ///   - function: The timer function's name.
    ///   - document: The document.
    ///   - key: The timer's key.
    ///   - transaction: The transaction to write in (required by ``PostgresTimers``).
    /// - Returns: Whether a timer was removed.
    @discardableResult
    func cancel(_ function: FunctionName, document: String, key: String, on transaction: PostgresConnection?)
        async throws -> Bool
}

extension TimerScheduling {
    /// Schedules a typed timer at an instant (see the requirement).
    @discardableResult
    public func schedule<F: TimerFunction>(
        _ function: F.Type,
        document: String,
        key: String,
        at date: Date,
        payload: F.Payload,
        ifExists: TimerConflict = .replace,
        on transaction: PostgresConnection?
    ) async throws -> Bool {
        try await self.schedule(
            F.name, document: document, key: key, due: .at(date),
            payload: try JSONEncoder.timerPayloadEncoder().encode(payload), ifExists: ifExists, on: transaction)
    }

    /// Schedules a typed timer after a delay (see the requirement).
    @discardableResult
    public func schedule<F: TimerFunction>(
        _ function: F.Type,
        document: String,
        key: String,
        after delay: Duration,
        payload: F.Payload,
        ifExists: TimerConflict = .replace,
        on transaction: PostgresConnection?
    ) async throws -> Bool {
        try await self.schedule(
            F.name, document: document, key: key, due: .after(delay),
            payload: try JSONEncoder.timerPayloadEncoder().encode(payload), ifExists: ifExists, on: transaction)
    }

    /// Cancels a typed timer (see the requirement).
    @discardableResult
    public func cancel<F: TimerFunction>(
        _ function: F.Type,
        document: String,
        key: String,
        on transaction: PostgresConnection?
    ) async throws -> Bool {
        try await self.cancel(F.name, document: document, key: key, on: transaction)
    }
}
