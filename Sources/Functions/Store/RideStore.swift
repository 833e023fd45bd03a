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

    /// The first accept wins: moves the order `NEW → ACCEPTED` with this driver, if it was offered to them, they did
    /// not decline it, and the offer expired less than `grace` ago (zero: it is still open). Returns whether it
    /// moved; throws ``FunctionsError/Code/driverBusy`` while the driver has another active order.
    func accept(orderID: UUID, driverID: UUID, grace: Duration) async throws -> Bool

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
    ///
    /// A position dated after the moment it is applied is recorded at that moment instead (see
    /// ``PostgresRideStore``): a phone whose clock runs ahead, or the emulator's accelerated clock, can never pin a
    /// driver to a position that no later report is "newer" than.
    func updateDriverPosition(
        deviceID: String,
        latitude: Double,
        longitude: Double,
        recordedAt: Date
    ) async throws -> Bool

    /// Records the device status HyperTrack reported (`active`, `inactive`, `disconnected`) for the driver of
    /// `deviceID`, unless a newer one is recorded; returns whether it changed anything.
    func setDeviceStatus(deviceID: String, status: String, at date: Date) async throws -> Bool

    /// Dispatchable drivers (see ``DriverSearch``) within `radius` metres of `point`, nearest first.
    func nearestAvailableDrivers(
        near point: Coordinate,
        radius: Double,
        limit: Int,
        search: DriverSearch
    ) async throws -> [UUID]

    /// The dispatchable drivers among these devices, as `device id → driver id` (the position rule does not apply:
    /// HyperTrack's Nearby API has just placed them).
    func availableDrivers(deviceIDs: [String], search: DriverSearch) async throws -> [String: UUID]

    /// Records offers of the order to these drivers, made by dispatch round `round` (`nil`: the order's current
    /// round) and open for `ttl` (repeats are ignored).
    func recordOffers(orderID: UUID, driverIDs: [UUID], round: Int?, ttl: Duration) async throws

    /// Starts the next dispatch round of a `NEW` order: returns its number (1 for the first), or `nil` when the
    /// order is not `NEW` (any more).
    func startDispatchRound(orderID: UUID) async throws -> Int?

    /// When the last of the order's open offers (neither declined nor expired) expires, or `nil` if none is open.
    func openOffersExpiry(orderID: UUID) async throws -> Date?

    /// The last dispatch round that offered the order to anyone (0: none did).
    func lastOfferedRound(orderID: UUID) async throws -> Int

    /// Ends a `NEW` order nobody accepted: `CANCELLED` with reason ``OrderRow/noDriverFound`` and no canceller.
    /// Returns whether it did (`false` once the order left `NEW`).
    func cancelUnmatched(orderID: UUID) async throws -> Bool

    /// `NEW` orders waiting near a dispatchable driver (within `radius` metres of their fresh position) that were
    /// never offered to them, nearest pickup first.
    func waitingOrders(forDriver driverID: UUID, radius: Double, limit: Int, search: DriverSearch) async throws
        -> [UUID]

    /// Records what handling an inbox event did (`applied`, `ignored: …`).
    func setWebhookOutcome(eventID: Int64, outcome: String) async throws

    /// The inbox events of `tripID` that wait for its leg (their outcome is an ``OnTripWebhook`` waiting outcome),
    /// oldest first, each with that outcome.
    func waitingWebhookEvents(tripID: String) async throws -> [(id: Int64, outcome: String)]

    /// An inbox event, or `nil` once it was pruned.
    func webhookEvent(id: Int64) async throws -> WebhookEventRow?

    /// Legs whose expected webhook is overdue, at most `limit`, marked as checked now (so the next call skips them
    /// for `recheck`): an active leg of an order still driving to it, not arrived, whose ETA (or, without one, its
    /// creation) is more than `margin` ago, with no event for its trip within `margin`; or a completed leg still
    /// without a summary `margin` after its completion.
    func overdueLegs(margin: Duration, recheck: Duration, limit: Int) async throws -> [LegRecord]
}

extension RideStore {
    /// Dispatchable drivers with the default rules, nearest first.
    public func nearestAvailableDrivers(near point: Coordinate, radius: Double, limit: Int) async throws -> [UUID] {
        try await self.nearestAvailableDrivers(near: point, radius: radius, limit: limit, search: DriverSearch())
    }

    /// The dispatchable drivers among these devices, with the default rules.
    public func availableDrivers(deviceIDs: [String]) async throws -> [String: UUID] {
        try await self.availableDrivers(deviceIDs: deviceIDs, search: DriverSearch())
    }

    /// Accepts only while the driver's offer is open (no grace).
    public func accept(orderID: UUID, driverID: UUID) async throws -> Bool {
        try await self.accept(orderID: orderID, driverID: driverID, grace: .zero)
    }

    /// Records first-round offers with the default lifetime.
    public func recordOffers(orderID: UUID, driverIDs: [UUID]) async throws {
        try await self.recordOffers(orderID: orderID, driverIDs: driverIDs, round: 1, ttl: DriverSearch.defaultOfferTTL)
    }
}

/// Who dispatch may offer an order to: a driver who is available (went online), whose device is tracking (the last
/// `device_status` was not `inactive` or `disconnected`), who is not on an active order, whose last position is
/// younger than ``maxPositionAge``, and who was not offered ``excludingOffersOf`` already.
public struct DriverSearch: Sendable, Hashable {
    /// The default lifetime of an offer: 20 s.
    public static let defaultOfferTTL: Duration = .seconds(20)
    /// The default age beyond which a position no longer counts: 2 minutes.
    public static let defaultMaxPositionAge: Duration = .seconds(120)
    /// The most positions a search looks at, nearest first, before its filters (see ``M0018BoundedDriverSearch``):
    /// drivers beyond the 500 nearest to a pickup are not offered its ride.
    public static let scannedPositions = 500

    /// A driver whose last position is older than this is not dispatchable: they may have left, or their phone
    /// stopped reporting.
    public var maxPositionAge: Duration
    /// Leave out the drivers this order was already offered to (the next round goes to new drivers).
    public var excludingOffersOf: UUID?

    /// Creates search rules.
    public init(maxPositionAge: Duration = DriverSearch.defaultMaxPositionAge, excludingOffersOf: UUID? = nil) {
        self.maxPositionAge = maxPositionAge
        self.excludingOffersOf = excludingOffersOf
    }
}

/// Dispatch's timers, one pending of each kind per order.
public enum DispatchTimer: String, Sendable, Hashable, CaseIterable {
    /// The current round's offers ran out (all expired or declined): run the next round.
    case round
    /// The dispatch window closed: cancel the order if nobody accepted it.
    case window
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
