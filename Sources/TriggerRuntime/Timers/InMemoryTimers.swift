import Foundation
import Logging
import PostgresNIO

/// The in-memory twin of ``PostgresTimers`` for unit tests: timers on a clock the test moves.
///
/// `advance(by:)` fires every timer that falls due, in due order (scheduling order among equal due times), through
/// the registry's handlers, each with a context whose `timer` is set and whose `transaction` is `nil`; a handler may
/// schedule or cancel timers on the same twin (a timer it schedules within the advanced span fires in the same
/// call). Like ``PostgresTimers`` it refuses timers of functions the registry does not have as timer functions.
/// Unlike the worker it does not retry: a handler's error is thrown by `advance` (the timer is consumed), so a test
/// sees it at once. Transactions do not exist here, so a rollback cannot be modelled.
///
/// ```swift
/// let timers = InMemoryTimers(registry: registry, logger: logger)
/// try await timers.schedule(ExpireOffer.self, document: "o1", key: "offer", after: .seconds(20), payload: p, on: nil)
/// try await timers.advance(by: .seconds(19))   // nothing fires
/// try await timers.advance(by: .seconds(1))    // ExpireOffer.fire runs
/// ```
public actor InMemoryTimers: TimerScheduling {
    /// A pending timer.
    public struct Pending: Sendable, Hashable {
        /// The timer function.
        public var function: FunctionName
        /// The document.
        public var document: String
        /// The key.
        public var key: String
        /// When it is due.
        public var dueAt: Date
        /// Its payload as JSON.
        public var payload: Data?
        fileprivate var sequence: Int
    }

    private let registry: FunctionRegistry
    private let logger: Logger
    /// The twin's clock.
    public private(set) var now: Date
    private var pending: [String: Pending] = [:]
    private var sequence = 0
    private var nextEventID: Int64 = 1

    /// Creates an empty twin.
    /// - Parameters:
    ///   - registry: Its timer functions' handlers run when their timers fall due.
    ///   - now: The clock's start.
    ///   - logger: The handlers' logger.
    public init(registry: FunctionRegistry, now: Date = Date(timeIntervalSince1970: 1_800_000_000), logger: Logger) {
        self.registry = registry
        self.now = now
        self.logger = logger
    }

    /// The pending timers in due order.
    public var pendingTimers: [Pending] {
        self.pending.values.sorted { ($0.dueAt, $0.sequence) < ($1.dueAt, $1.sequence) }
    }

    private static func slot(_ function: FunctionName, _ document: String, _ key: String) -> String {
        "\(function.rawValue)\u{0}\(document)\u{0}\(key)"
    }

    public func schedule(
        _ function: FunctionName,
        document: String,
        key: String,
        due: TimerDue,
        payload: Data?,
        ifExists: TimerConflict,
        on transaction: PostgresConnection?
    ) async throws -> Bool {
        guard let registered = self.registry.function(named: function), case .timer = registered.kind else {
            throw TriggerRuntimeError(.functionNotRegistered, "\(function) is not registered as a timer function")
        }
        let slot = Self.slot(function, document, key)
        if ifExists == .keep && self.pending[slot] != nil { return false }
        let dueAt: Date =
            switch due {
            case .at(let date): date
            case .after(let delay): self.now.addingTimeInterval(delay.secondsValue)
            }
        self.sequence += 1
        self.pending[slot] = Pending(
            function: function, document: document, key: key, dueAt: dueAt, payload: payload,
            sequence: self.sequence)
        return true
    }

    public func cancel(_ function: FunctionName, document: String, key: String, on transaction: PostgresConnection?)
        async throws -> Bool
    {
        self.pending.removeValue(forKey: Self.slot(function, document, key)) != nil
    }

    /// Moves the clock forward by `duration`, firing what falls due; returns the timers fired, in order.
    /// - Parameter duration: How far to move the clock.
    @discardableResult
    public func advance(by duration: Duration) async throws -> [Pending] {
        try await self.advance(to: self.now.addingTimeInterval(duration.secondsValue))
    }

    /// Moves the clock forward to `date` (never back), firing what falls due; returns the timers fired, in order.
    /// - Parameter date: The clock's new time.
    @discardableResult
    public func advance(to date: Date) async throws -> [Pending] {
        var fired: [Pending] = []
        while let next = self.pendingTimers.first, next.dueAt <= date {
            self.pending[Self.slot(next.function, next.document, next.key)] = nil
            self.now = max(self.now, next.dueAt)
            fired.append(next)
            try await self.fire(next)
        }
        self.now = max(self.now, date)
        return fired
    }

    private func fire(_ timer: Pending) async throws {
        guard let function = self.registry.function(named: timer.function) else { return }
        let id = self.nextEventID
        self.nextEventID += 1
        var logger = self.logger
        logger[metadataKey: "trigger.function"] = "\(timer.function)"
        logger[metadataKey: "trigger.event_id"] = "\(id)"
        let context = FunctionContext(
            eventID: id, functionName: timer.function, operation: .timer, table: "", documentKey: timer.document,
            commitTime: timer.dueAt, attempt: 1, logger: logger, transaction: nil,
            timer: TimerInfo(key: timer.key, dueAt: timer.dueAt))
        try await function.invoke(before: nil, after: timer.payload, context: context)
    }
}
