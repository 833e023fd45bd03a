import Foundation
import PostgresNIO
import TriggerRuntime

/// A `TimerScheduling` that forwards to a scheduler set after it was made.
///
/// `InMemoryTimers` takes the registry whose handlers it fires, and the functions in that registry take the
/// scheduler they set their next timers with: the relay breaks the circle. Give the functions the relay, build the
/// registry and the `InMemoryTimers`, then ``connect(_:)`` it.
///
/// ```swift
/// let relay = TimerRelay()
/// var registry = FunctionRegistry()
/// registry.register(DispatchRound(tracking: fake, stores: store.factory, timers: relay, settings: settings))
/// let timers = InMemoryTimers(registry: registry, logger: logger)
/// await relay.connect(timers)
/// ```
public actor TimerRelay: TimerScheduling {
    private var target: (any TimerScheduling)?

    /// Creates an unconnected relay (scheduling through it throws until ``connect(_:)``).
    public init() {}

    /// Forwards every later call to `target`.
    public func connect(_ target: any TimerScheduling) {
        self.target = target
    }

    private func connected() throws -> any TimerScheduling {
        guard let target = self.target else {
            throw InMemoryRideStoreError.timerRelayNotConnected
        }
        return target
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
        try await self.connected().schedule(
            function, document: document, key: key, due: due, payload: payload, ifExists: ifExists, on: transaction
        )
    }

    public func cancel(_ function: FunctionName, document: String, key: String, on transaction: PostgresConnection?)
        async throws -> Bool
    {
        try await self.connected().cancel(function, document: document, key: key, on: transaction)
    }
}
