import Foundation
import HyperTrackAPI
import Logging
import TriggerRuntime

/// `dispatchOrder`: runs the first dispatch round of a new order and sets its window timer (see ``Dispatcher`` and
/// ``Backend/Configuration/Dispatch``).
///
/// It fires only for orders inserted with `dispatch_round` 0: the API's booking runs the first round in its own
/// transaction and inserts the order with 1 (``PreparedStatements/BookAndOffer``), unless
/// `useNearbyAPI` is set; orders booked through ``RideStore/book(_:)`` (and by an earlier release's API) are
/// dispatched here. The filter is the capture trigger's, so a booking the API dispatched costs no delivery.
///
/// Candidates come from HyperTrack's Nearby API when `useNearbyAPI` is set (filtered to dispatchable drivers), from
/// the local position index otherwise. The closest `offerCount` get an offer; offers are recorded idempotently, so a
/// retry repeats nothing.
public struct DispatchOrder: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "dispatchOrder"
    /// Fires on inserts of orders whose first round has not run (`dispatch_round` 0).
    public static var trigger: Trigger { Trigger.create("orders").matching("$.dispatch_round == 0") }
    /// Ahead of the other functions' deliveries: a rider is waiting for these offers (see `FunctionOptions.Priority`).
    public static var options: FunctionOptions { FunctionOptions(priority: .high) }

    private let stores: RideStoreFactory
    private let dispatcher: Dispatcher

    /// Creates the function.
    /// - Parameters:
    ///   - tracking: HyperTrack (only used with `useNearbyAPI`).
    ///   - stores: Where the function's store comes from.
    ///   - timers: Where the round and window timers are set.
    ///   - settings: Radii, offer count and lifetime, window, position age.
    public init(
        tracking: some TripTracking,
        stores: RideStoreFactory,
        timers: some TimerScheduling,
        settings: Backend.Configuration.Dispatch
    ) {
        self.stores = stores
        self.dispatcher = Dispatcher(tracking: tracking, timers: timers, settings: settings)
    }

    /// Creates the function with the default settings but these.
    /// - Parameters:
    ///   - tracking: HyperTrack (only used with `useNearbyAPI`).
    ///   - stores: Where the function's store comes from.
    ///   - timers: Where the round and window timers are set.
    ///   - radius: The first round's search radius in metres.
    ///   - offerCount: How many drivers get the offer.
    ///   - useNearbyAPI: Ask HyperTrack's Nearby API instead of the local index.
    ///   - nearbyTimeout: How long a Nearby search may poll.
    public init(
        tracking: some TripTracking,
        stores: RideStoreFactory,
        timers: some TimerScheduling,
        radius: Double,
        offerCount: Int,
        useNearbyAPI: Bool = false,
        nearbyTimeout: Duration = .seconds(10)
    ) {
        let settings = Backend.Configuration.Dispatch(
            radius: radius,
            offerCount: offerCount,
            useNearbyAPI: useNearbyAPI,
            nearbyTimeout: nearbyTimeout
        )
        self.init(tracking: tracking, stores: stores, timers: timers, settings: settings)
    }

    public func handle(_ change: Change<OrderRow>, context: FunctionContext) async throws {
        guard let order = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the inserted order")
        }
        let store = try self.stores.store(for: context)
        guard let round = try await self.dispatcher.runRound(of: order, store: store, transaction: context.transaction)
        else {
            context.logger.info("order is no longer NEW; not dispatched", metadata: ["order_id": "\(order.id)"])
            return
        }
        try await self.dispatcher.scheduleWindow(of: order, transaction: context.transaction)
        context.logger.info(
            "order offered",
            metadata: [
                "order_id": "\(order.id)", "round": "\(round.number)", "drivers": "\(round.drivers.count)",
                "nearby_api": "\(self.dispatcher.settings.useNearbyAPI)",
            ]
        )
    }
}
