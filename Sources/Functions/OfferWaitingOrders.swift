import Foundation
import Logging
import TriggerRuntime

/// `offerWaitingOrders`: a driver who becomes dispatchable (goes online, or their device starts tracking again) is
/// offered the `NEW` orders waiting near them at once, without waiting for those orders' next round.
///
/// "Near" is the widest dispatch radius: an order waiting that long has reached it or soon will. At most
/// ``maximumOffers`` orders at a time, nearest pickup first; each offer belongs to the order's current round and
/// lives `offerTTL` like the others.
public struct OfferWaitingOrders: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "offerWaitingOrders"
    /// Fires when a user's availability or device status changes.
    public static var trigger: Trigger { .update("users", columns: ["available", "device_status"]) }
    /// Ahead of the other functions' deliveries: a rider is waiting for these offers (see `FunctionOptions.Priority`).
    public static var options: FunctionOptions { FunctionOptions(priority: .high) }
    /// How many waiting orders one driver is offered at once.
    public static let maximumOffers = 3

    private let stores: RideStoreFactory
    private let settings: Backend.Configuration.Dispatch

    /// Creates the function.
    /// - Parameters:
    ///   - stores: Where the function's store comes from.
    ///   - settings: The widest radius, the offer lifetime, the position age.
    public init(stores: RideStoreFactory, settings: Backend.Configuration.Dispatch) {
        self.stores = stores
        self.settings = settings
    }

    public func handle(_ change: Change<UserRow>, context: FunctionContext) async throws {
        guard let after = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the updated user")
        }
        guard after.isDispatchable, change.before?.isDispatchable != true else { return }
        let store = try self.stores.store(for: context)
        let orders = try await Self.offer(to: after.id, store: store, settings: self.settings)
        if !orders.isEmpty {
            context.logger.info(
                "waiting orders offered to a driver who came online",
                metadata: ["driver_id": "\(after.id)", "orders": "\(orders.count)"]
            )
        }
    }

    /// Offers `driverID` the `NEW` orders waiting within the widest radius that were not offered to them yet, at most
    /// ``maximumOffers``, nearest pickup first, each in its order's current round. None when the driver is not
    /// dispatchable (the store's search checks it, with a fresh position). Returns the orders offered.
    static func offer(
        to driverID: UUID,
        store: any RideStore,
        settings: Backend.Configuration.Dispatch
    ) async throws -> [UUID] {
        let orders = try await store.waitingOrders(
            forDriver: driverID,
            radius: settings.maxRadius,
            limit: Self.maximumOffers,
            search: DriverSearch(maxPositionAge: settings.maxPositionAge)
        )
        for order in orders {
            try await store.recordOffers(orderID: order, driverIDs: [driverID], round: nil, ttl: settings.offerTTL)
        }
        return orders
    }
}
