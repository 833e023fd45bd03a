import Foundation
import HyperTrackAPI

/// The rides as the API and the trigger functions change them: the one set of order operations.
///
/// `PostgresRideStore` runs them on the API's pooled client or on the delivery's open transaction (so a function's
/// writes commit together with the completion of its delivery). `FunctionsTesting` has the in-memory twin. Every
/// write is conditional where a race, a retry or a late event could otherwise repeat or reverse it.
public protocol RideStore: Sendable {
    /// Books a `NEW` order for a rider; the database gives it its id and timestamps.
    func book(_ order: NewOrder) async throws -> OrderRow

    /// The first accept wins: moves the order `NEW → ACCEPTED` with this driver, if it was offered to them.
    /// Returns whether it moved; throws ``FunctionsError/Code/driverBusy`` while the driver has another active
    /// order.
    func accept(orderID: UUID, driverID: UUID) async throws -> Bool

    /// A driver's step on their own order (`from → to`) if it is still in `from`; returns whether it moved.
    /// Illegal transitions throw.
    func advance(orderID: UUID, driverID: UUID, from: OrderStatus, to: OrderStatus) async throws -> Bool

    /// Cancels the order for its rider or its driver (`callerID`), unless it is finished; returns whether it did.
    func cancel(orderID: UUID, by callerID: UUID, reason: String) async throws -> Bool

    /// The order as it is now, or `nil` when it does not exist (any more).
    func order(id: UUID) async throws -> OrderRow?

    /// The order as it is now, locked until the transaction ends, so that two handlers of the same order (say, the
    /// summaries of both legs arriving at once) run one after the other and the second sees the first's writes.
    func lockOrder(id: UUID) async throws -> OrderRow?

    /// The HyperTrack device of a driver, or `nil` when the user is unknown or not a driver.
    func deviceID(ofDriver driverID: UUID) async throws -> String?

    /// The recorded leg of an order, if its trip was recorded.
    func leg(orderID: UUID, kind: LegKind) async throws -> LegRecord?

    /// The leg whose trip is `tripID`, if any.
    func leg(tripID: String) async throws -> LegRecord?

    /// All recorded legs of an order.
    func legs(orderID: UUID) async throws -> [LegRecord]

    /// Records a leg's trip. A leg that is already recorded is left as it is; returns whether this call recorded it.
    func recordLeg(_ leg: NewLeg) async throws -> Bool

    /// Moves an order `from → to` if it is still in `from`; returns whether it moved. Illegal transitions throw.
    func moveOrder(id: UUID, from: OrderStatus, to: OrderStatus) async throws -> Bool

    /// Marks the order's active legs (all, or only `kinds`) for completion; returns how many were marked.
    func markLegsForCompletion(orderID: UUID, kinds: Set<LegKind>) async throws -> Int

    /// Moves a leg `completing → completed`; returns whether it moved.
    func markLegCompleted(id: UUID) async throws -> Bool

    /// Records when the device arrived at the leg's destination (the first arrival wins).
    func recordArrival(legID: UUID, at date: Date) async throws

    /// Stores a completed trip's summary on its leg and marks the leg completed.
    func recordLegSummary(legID: UUID, summary: LegSummary) async throws

    /// Sets the order's summary and fare.
    func setOrderSummary(orderID: UUID, summary: OrderSummary) async throws

    /// Moves the driver of `deviceID` to a position, unless a newer one is recorded; returns whether it moved.
    func updateDriverPosition(
        deviceID: String,
        latitude: Double,
        longitude: Double,
        recordedAt: Date
    ) async throws -> Bool

    /// Drivers who are available and not on an order, nearest first, within `radius` metres of `point`.
    func nearestAvailableDrivers(near point: Coordinate, radius: Double, limit: Int) async throws -> [UUID]

    /// The available drivers (not on an order) among these devices, as `device id → driver id`.
    func availableDrivers(deviceIDs: [String]) async throws -> [String: UUID]

    /// Records that the order was offered to these drivers (repeats are ignored).
    func recordOffers(orderID: UUID, driverIDs: [UUID]) async throws

    /// Records what handling an inbox event did (`applied`, `ignored: …`).
    func setWebhookOutcome(eventID: Int64, outcome: String) async throws
}

/// A recorded leg.
public struct LegRecord: Sendable, Hashable {
    /// The leg's id.
    public var id: UUID
    /// Its order.
    public var orderID: UUID
    /// Pickup or dropoff.
    public var kind: LegKind
    /// The driver's device.
    public var deviceID: String
    /// The HyperTrack trip.
    public var tripID: String
    /// Active, completing or completed.
    public var status: LegStatus
    /// The trip's summary, once the `completed` event arrived.
    public var summary: LegSummary?

    /// Creates a leg record.
    public init(
        id: UUID,
        orderID: UUID,
        kind: LegKind,
        deviceID: String,
        tripID: String,
        status: LegStatus,
        summary: LegSummary? = nil
    ) {
        self.id = id
        self.orderID = orderID
        self.kind = kind
        self.deviceID = deviceID
        self.tripID = tripID
        self.status = status
        self.summary = summary
    }
}

extension LegRecord {
    /// The record of a leg row.
    /// - Parameter row: The `order_legs` row.
    public init(row: LegRow) {
        self.init(
            id: row.id,
            orderID: row.orderID,
            kind: row.leg,
            deviceID: row.deviceID,
            tripID: row.tripID,
            status: row.status,
            summary: row.summary
        )
    }
}

/// An order to book.
public struct NewOrder: Sendable, Hashable {
    /// The rider who books.
    public var riderID: UUID
    /// Where the rider waits.
    public var pickup: OrderRow.Place
    /// Where the rider goes.
    public var dropoff: OrderRow.Place

    /// Creates an order to book.
    public init(riderID: UUID, pickup: OrderRow.Place, dropoff: OrderRow.Place) {
        self.riderID = riderID
        self.pickup = pickup
        self.dropoff = dropoff
    }
}

/// A leg to record: the trip just created or adopted for it.
public struct NewLeg: Sendable, Hashable {
    /// The order.
    public var orderID: UUID
    /// Pickup or dropoff.
    public var kind: LegKind
    /// The trip as HyperTrack returned it.
    public var trip: Trip

    /// Creates a leg to record.
    public init(orderID: UUID, kind: LegKind, trip: Trip) {
        self.orderID = orderID
        self.kind = kind
        self.trip = trip
    }
}
