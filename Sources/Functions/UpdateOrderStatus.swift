import Foundation
import HyperTrackAPI
import Logging
import TriggerRuntime

/// `updateOrderStatus`: reacts to an order's status transitions, as the reference backend does.
///
/// - `NEW → ACCEPTED`: creates (idempotently) the pickup trip, records the leg, moves to `PICKING_UP`.
/// - `REACHED_PICKUP → STARTED_RIDE`: marks the pickup trip for completion, creates the dropoff trip, moves to
///   `DROPPING_OFF`.
/// - `→ COMPLETED`, `→ CANCELLED`: marks every active trip of the order for completion (`completeTrip` completes
///   them). A cancelled order releases its driver: a driver is busy exactly while an order of theirs is active.
///
/// A transition the order has already left (say, cancelled before its pickup trip was created) creates nothing.
/// Leaving `NEW` (accepted or cancelled) cancels the order's dispatch timers, so they do not fire as no-ops.
/// Recording a leg replays at once the trip's events that arrived before it (see `replayWaitingEvents`).
public struct UpdateOrderStatus: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "updateOrderStatus"
    /// Fires when an order's `status` changes to one of ``actingOn``.
    public static var trigger: Trigger {
        .update("orders", columns: ["status"]).matching("status", in: Self.actingOn.map(\.rawValue))
    }
    /// The statuses whose arrival this function acts on (see ``handle(_:context:)``): the trigger fires for no
    /// other. Leaving `NEW` (which cancels the dispatch timers) goes to `ACCEPTED` or `CANCELLED`, both here.
    ///
    /// **Why.** Half of a ride's eight transitions need nothing (`ACCEPTED → PICKING_UP`, `PICKING_UP →
    /// REACHED_PICKUP`, `STARTED_RIDE → DROPPING_OFF`, `DROPPING_OFF → REACHED_DROPOFF`), yet each was a delivery:
    /// captured with both rows, claimed, run in a savepoint and logged done. In the 17th session's 4,000-ride run
    /// this function had 25,088 deliveries, a lag p50 of 7.2 s and most of the worker's backlog. A test runs every
    /// legal transition to a status not listed and checks that it does nothing.
    public static let actingOn: [OrderStatus] = [.accepted, .startedRide, .completed, .cancelled]
    /// Creates trips: survives an hour of HyperTrack outage (``FunctionOptions/hyperTrackCalls``).
    public static var options: FunctionOptions { .hyperTrackCalls }

    private let legs: TripLegs
    private let stores: RideStoreFactory
    private let timers: (any TimerScheduling)?

    /// Creates the function.
    /// - Parameters:
    ///   - tracking: HyperTrack.
    ///   - stores: Where the function's store comes from (`.postgres` in production).
    ///   - destinationRadius: The trips' arrival radius in metres (the reference uses 100).
    ///   - timers: Where the dispatch timers of an order that left `NEW` are cancelled, and the replays of events
    ///     that arrived before their leg are moved to now; `nil` leaves both to their time (dispatch timers do
    ///     nothing once the order left `NEW`; a replay finds the leg at its next step).
    public init(
        tracking: some TripTracking,
        stores: RideStoreFactory,
        destinationRadius: Int = 100,
        timers: (any TimerScheduling)? = nil
    ) {
        self.legs = TripLegs(tracking: tracking, destinationRadius: destinationRadius)
        self.stores = stores
        self.timers = timers
    }

    public func handle(_ change: Change<OrderRow>, context: FunctionContext) async throws {
        guard let before = change.before, let after = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the order before and after the update")
        }
        let store = try self.stores.store(for: context)
        var logger = context.logger
        logger[metadataKey: "order_id"] = "\(after.id)"
        if before.status == .new, after.status != .new, let timers = self.timers {
            let document = Dispatcher.document(after.id)
            try await timers.cancel(DispatchRound.name, document: document, key: Dispatcher.roundKey, on: context.transaction)
            try await timers.cancel(DispatchWindow.name, document: document, key: Dispatcher.windowKey, on: context.transaction)
        }
        switch (before.status, after.status) {
        case (.new, .accepted):
            guard try await store.order(id: after.id)?.status == .accepted else {
                logger.info("order left ACCEPTED before its pickup trip was created; nothing to do")
                return
            }
            let pickup = try await self.legs.ensureTrip(
                orderID: after.id,
                kind: .pickup,
                deviceID: try await self.deviceID(of: after, store: store),
                destination: after.pickup,
                store: store,
                logger: logger
            )
            _ = try await store.moveOrder(id: after.id, from: .accepted, to: .pickingUp)
            try await self.replayWaitingEvents(after: pickup, store: store, context: context, logger: logger)
        case (.reachedPickup, .startedRide):
            guard try await store.order(id: after.id)?.status == .startedRide else {
                logger.info("order left STARTED_RIDE before its dropoff trip was created; nothing to do")
                return
            }
            _ = try await store.markLegsForCompletion(orderID: after.id, kinds: [.pickup])
            let dropoff = try await self.legs.ensureTrip(
                orderID: after.id,
                kind: .dropoff,
                deviceID: try await self.deviceID(of: after, store: store),
                destination: after.dropoff,
                store: store,
                logger: logger
            )
            _ = try await store.moveOrder(id: after.id, from: .startedRide, to: .droppingOff)
            try await self.replayWaitingEvents(after: dropoff, store: store, context: context, logger: logger)
        case (_, .completed), (_, .cancelled):
            let marked = try await store.markLegsForCompletion(orderID: after.id, kinds: Set(LegKind.allCases))
            logger.info(
                "order finished; active trips marked for completion",
                metadata: ["status": "\(after.status.rawValue)", "legs": "\(marked)"]
            )
            if after.status == .cancelled { try await self.completeUnrecordedTrips(of: after, store: store, logger: logger) }
        default:
            logger.debug(
                "transition needs no action",
                metadata: ["from": "\(before.status.rawValue)", "to": "\(after.status.rawValue)"]
            )
        }
    }

    /// HyperTrack can report a trip's arrival before the transaction that records its leg commits (the phone is
    /// near the destination, or the transaction is slow): ``OnTripWebhook`` then sets the event to be replayed, after
    /// 1, 2, 4 … 60 s. The transaction that records the leg moves those replays to now, so the arrival is applied
    /// as soon as it commits rather than up to a minute later (a leg recorded before needs nothing).
    private func replayWaitingEvents(
        after leg: (outcome: TripLegs.Outcome, tripID: String),
        store: any RideStore,
        context: FunctionContext,
        logger: Logger
    ) async throws {
        guard leg.outcome != .recorded, let timers = self.timers else { return }
        let moved = try await OnTripWebhook.replayWaitingEvents(
            of: leg.tripID, store: store, timers: timers, context: context)
        if moved > 0 {
            logger.info(
                "events that arrived before the leg are replayed now",
                metadata: ["hypertrack.trip_id": "\(leg.tripID)", "events": "\(moved)"]
            )
        }
    }

    /// A trip that an attempt created but never recorded (it crashed before its commit, and the order was cancelled
    /// before a retry could adopt it) belongs to no leg, so marking the legs cannot reach it: found on HyperTrack by
    /// its `{order_id, leg}` metadata among the driver's active trips, it is completed here. Only on cancellation
    /// (one extra read of the device's trips): a ride that goes on adopts such a trip when the leg is created.
    private func completeUnrecordedTrips(of order: OrderRow, store: any RideStore, logger: Logger) async throws {
        guard let driverID = order.driverID, let deviceID = try await store.deviceID(ofDriver: driverID) else { return }
        let recorded = Set(try await store.legs(orderID: order.id).map(\.tripID))
        for trip in try await self.legs.tracking.activeTrips(deviceID: deviceID)
        where !recorded.contains(trip.tripID)
            && LegKind.allCases.contains(where: { TripLegs.matches(trip, orderID: order.id, kind: $0) })
        {
            try await self.legs.tracking.completeTrip(id: trip.tripID)
            logger.notice(
                "completed a trip that a crashed attempt created but never recorded",
                metadata: ["hypertrack.trip_id": "\(trip.tripID)"]
            )
        }
    }

    private func deviceID(of order: OrderRow, store: any RideStore) async throws -> String {
        guard let driverID = order.driverID, let deviceID = try await store.deviceID(ofDriver: driverID) else {
            throw FunctionsError.driverWithoutDevice(order.driverID, order: order.id)
        }
        return deviceID
    }
}
