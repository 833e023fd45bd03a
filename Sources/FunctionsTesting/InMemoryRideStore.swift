import Foundation
import Functions
import HyperTrackAPI
import TriggerRuntime

/// The in-memory twin of `PostgresRideStore`, with the same rules: legal transitions only, the first accept wins,
/// one leg per order and kind, conditional moves, newer positions only, drivers busy while an order of theirs is
/// active.
///
/// `run(_:_:context:)` gives an invocation the database's atomicity: if the function throws, every write it made
/// is rolled back, as its transaction would be. `fail(_:)` makes a store call throw, to model a crash between a
/// HyperTrack call and the commit.
///
/// ```swift
/// let store = InMemoryRideStore()
/// await store.addDriver(id: driver, deviceID: "D1")
/// await store.addOrder(order)
/// try await store.run(UpdateOrderStatus(tracking: fake, stores: store.factory), change, context: .testing())
/// ```
public actor InMemoryRideStore: RideStore {
    /// A store call that can be made to fail.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        case book, accept, advance, cancel
        case recordLeg, moveOrder, markLegsForCompletion, markLegCompleted, recordArrival, recordLegSummary
        case setOrderSummary, updateDriverPosition, recordOffers, setWebhookOutcome
        case setDeviceStatus, startDispatchRound, cancelUnmatched, waitingWebhookEvents
    }

    /// A driver as the store knows them.
    public struct Driver: Sendable, Hashable {
        /// The driver's id.
        public var id: UUID
        /// Their HyperTrack device.
        public var deviceID: String
        /// Whether they take orders.
        public var available: Bool
        /// Their last known position and when it was recorded.
        public var position: Position?
        /// The last `device_status` HyperTrack reported (`nil`: never reported, counts as tracking), and when.
        public var deviceStatus: (value: String, at: Date)?

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.id == rhs.id && lhs.deviceID == rhs.deviceID && lhs.available == rhs.available
                && lhs.position == rhs.position && lhs.deviceStatus?.value == rhs.deviceStatus?.value
                && lhs.deviceStatus?.at == rhs.deviceStatus?.at
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(self.id)
            hasher.combine(self.deviceID)
        }
    }

    /// An offer of an order to a driver.
    public struct Offer: Sendable, Hashable {
        /// The driver.
        public var driverID: UUID
        /// The dispatch round that made it.
        public var round: Int
        /// When it stops being acceptable.
        public var expiresAt: Date
        /// When the driver declined it.
        public var declinedAt: Date?
    }

    /// A recorded position.
    public struct Position: Sendable, Hashable {
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double
        /// When the device recorded it.
        public var recordedAt: Date
    }

    /// A leg with everything the store records about it.
    public struct StoredLeg: Sendable, Hashable {
        /// The leg as functions see it.
        public var record: LegRecord
        /// The trip it was recorded from.
        public var trip: Trip
        /// The first arrival at its destination.
        public var arrivedAt: Date?
    }

    struct State: Sendable {
        var orders: [UUID: OrderRow] = [:]
        var drivers: [UUID: Driver] = [:]
        var legs: [StoredLeg] = []
        var offers: [UUID: [Offer]] = [:]
        var dispatchRounds: [UUID: Int] = [:]
        var outcomes: [Int64: String] = [:]
        var webhookEvents: [Int64: WebhookEventRow] = [:]
        var legsCheckedAt: [UUID: Date] = [:]
        var failures: [Operation: Int] = [:]
    }

    var state = State()

    /// The store's clock, which plays the database's `now()`: offers expire and positions age against it. It starts
    /// at the seeding helpers' default position time and moves only when a test moves it (``advance(by:)``).
    public private(set) var now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Moves the store's clock forward.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.now += Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Creates an empty store.
    public init() {}

    /// A factory that hands this store to every invocation.
    public nonisolated var factory: RideStoreFactory { RideStoreFactory { _ in self } }

    /// Runs one invocation of `function` with transaction semantics: all its writes, or none if it throws.
    /// - Parameters:
    ///   - function: The function.
    ///   - change: The change it handles.
    ///   - context: The invocation's context.
    public func run<F: TriggerFunction>(_ function: F, _ change: Change<F.Row>, context: FunctionContext) async throws {
        let snapshot = self.state
        do {
            try await function.handle(change, context: context)
        } catch {
            let failures = self.state.failures
            self.state = snapshot
            self.state.failures = failures
            throw error
        }
    }

    /// Makes the next `times` calls of `operation` throw `InMemoryRideStoreError.scripted` before any effect.
    public func fail(_ operation: Operation, times: Int = 1) {
        self.state.failures[operation, default: 0] += times
    }

    func check(_ operation: Operation) throws {
        if let remaining = self.state.failures[operation], remaining > 0 {
            self.state.failures[operation] = remaining - 1
            throw InMemoryRideStoreError.scripted(operation)
        }
    }
}

/// Failures of `InMemoryRideStore`.
public enum InMemoryRideStoreError: Error, Sendable, Hashable {
    /// A failure scripted with `fail(_:times:)`.
    case scripted(InMemoryRideStore.Operation)
    /// A transition the state machine forbids (the database says `illegal order transition A -> B`).
    case illegalTransition(from: OrderStatus, to: OrderStatus)
    /// A `TimerRelay` was used before a scheduler was connected to it.
    case timerRelayNotConnected
}
