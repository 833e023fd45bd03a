import Foundation
import HyperTrackAPI
import Logging
import TriggerRuntime

/// `dispatchOrder`: offers a new order to the nearest available drivers.
///
/// Candidates come from HyperTrack's Nearby API when `useNearbyAPI` is set (filtered to drivers who are available
/// and not on an order), from the local position index otherwise. The closest `offerCount` get an offer; offers
/// are recorded idempotently, so a retry repeats nothing.
public struct DispatchOrder: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "dispatchOrder"
    /// Fires on order inserts.
    public static var trigger: Trigger { .create("orders") }

    private let tracking: any TripTracking
    private let stores: RideStoreFactory
    private let radius: Double
    private let offerCount: Int
    private let useNearbyAPI: Bool
    private let nearbyTimeout: Duration

    /// Creates the function.
    /// - Parameters:
    ///   - tracking: HyperTrack (only used with `useNearbyAPI`).
    ///   - stores: Where the function's store comes from.
    ///   - radius: The search radius in metres.
    ///   - offerCount: How many drivers get the offer.
    ///   - useNearbyAPI: Ask HyperTrack's Nearby API instead of the local index.
    ///   - nearbyTimeout: How long a Nearby search may poll.
    public init(
        tracking: some TripTracking,
        stores: RideStoreFactory,
        radius: Double,
        offerCount: Int,
        useNearbyAPI: Bool = false,
        nearbyTimeout: Duration = .seconds(10)
    ) {
        self.tracking = tracking
        self.stores = stores
        self.radius = radius
        self.offerCount = offerCount
        self.useNearbyAPI = useNearbyAPI
        self.nearbyTimeout = nearbyTimeout
    }

    public func handle(_ change: Change<OrderRow>, context: FunctionContext) async throws {
        guard let order = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the inserted order")
        }
        let store = try self.stores.store(for: context)
        guard try await store.order(id: order.id)?.status == .new else {
            context.logger.info("order is no longer NEW; not dispatched", metadata: ["order_id": "\(order.id)"])
            return
        }
        let drivers: [UUID]
        if self.useNearbyAPI {
            let devices = try await self.tracking.nearbyDevices(
                NearbyRequest(location: order.pickup.coordinate, radius: self.radius),
                deadline: .now + self.nearbyTimeout
            )
            let available = try await store.availableDrivers(deviceIDs: devices.map(\.deviceID))
            var seen = Set<UUID>()
            drivers = devices.compactMap { available[$0.deviceID] }.filter { seen.insert($0).inserted }
                .prefix(self.offerCount).map { $0 }
        } else {
            drivers = try await store.nearestAvailableDrivers(
                near: order.pickup.coordinate,
                radius: self.radius,
                limit: self.offerCount
            )
        }
        try await store.recordOffers(orderID: order.id, driverIDs: drivers)
        context.logger.info(
            "order offered",
            metadata: ["order_id": "\(order.id)", "drivers": "\(drivers.count)", "nearby_api": "\(self.useNearbyAPI)"]
        )
    }
}
