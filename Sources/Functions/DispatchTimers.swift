import Foundation
import Logging
import TriggerRuntime

/// `dispatchRound`: an order's round timer fell due (see ``Dispatcher``). If an offer of the order is still open,
/// the timer moves to when it expires; otherwise the next round runs. Nothing happens once the order left `NEW`.
public struct DispatchRound: TimerFunction {
    /// Round timers carry nothing: the order (the timer's document) and its offers say everything.
    public struct Payload: Codable, Sendable, Hashable {}

    /// The persisted name.
    public static let name: FunctionName = "dispatchRound"
    /// Ahead of the other functions' deliveries: a rider is waiting for these offers (see `FunctionOptions.Priority`).
    public static var options: FunctionOptions { FunctionOptions(priority: .high) }

    private let stores: RideStoreFactory
    private let dispatcher: Dispatcher

    /// Creates the function.
    /// - Parameters:
    ///   - tracking: HyperTrack (only used with `useNearbyAPI`).
    ///   - stores: Where the function's store comes from.
    ///   - timers: Where the next round's timer is set.
    ///   - settings: Radii, offer count and lifetime, position age.
    public init(
        tracking: some TripTracking,
        stores: RideStoreFactory,
        timers: some TimerScheduling,
        settings: Backend.Configuration.Dispatch
    ) {
        self.stores = stores
        self.dispatcher = Dispatcher(tracking: tracking, timers: timers, settings: settings)
    }

    public func fire(_ timer: TimerFiring<Payload>, context: FunctionContext) async throws {
        guard let orderID = UUID(uuidString: timer.documentKey) else {
            throw FunctionsError.malformedRow("\(Self.name): document \(timer.documentKey) is not an order id")
        }
        let store = try self.stores.store(for: context)
        guard let order = try await store.order(id: orderID), order.status == .new else {
            context.logger.debug("order is no longer NEW; no further round", metadata: ["order_id": "\(orderID)"])
            return
        }
        if let expiry = try await store.openOffersExpiry(orderID: orderID) {
            try await self.dispatcher.scheduleRound(of: orderID, due: .at(expiry), transaction: context.transaction)
            context.logger.debug("an offer is still open; round timer moved", metadata: ["order_id": "\(orderID)"])
            return
        }
        guard let round = try await self.dispatcher.runRound(of: order, store: store, transaction: context.transaction)
        else { return }
        context.logger.info(
            "order offered",
            metadata: [
                "order_id": "\(order.id)", "round": "\(round.number)", "drivers": "\(round.drivers.count)",
                "radius_m": "\(Int(round.radius))",
            ]
        )
    }
}

/// `dispatchWindow`: the dispatch window of an order closed. An order still `NEW` is cancelled with reason
/// `no_driver_found` (the rider sees it on the order); anything else is left alone.
public struct DispatchWindow: TimerFunction {
    /// Window timers carry nothing: the order is the timer's document.
    public struct Payload: Codable, Sendable, Hashable {}

    /// The persisted name.
    public static let name: FunctionName = "dispatchWindow"

    private let stores: RideStoreFactory

    /// Creates the function.
    /// - Parameter stores: Where the function's store comes from.
    public init(stores: RideStoreFactory) {
        self.stores = stores
    }

    public func fire(_ timer: TimerFiring<Payload>, context: FunctionContext) async throws {
        guard let orderID = UUID(uuidString: timer.documentKey) else {
            throw FunctionsError.malformedRow("\(Self.name): document \(timer.documentKey) is not an order id")
        }
        let store = try self.stores.store(for: context)
        if try await store.cancelUnmatched(orderID: orderID) {
            context.logger.info("nobody accepted the order in time; cancelled", metadata: ["order_id": "\(orderID)"])
        }
    }
}
