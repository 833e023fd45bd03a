import Foundation
import HyperTrackAPI
import Logging
import TriggerRuntime

/// One round of dispatch, shared by `dispatchOrder` (round 1, on booking) and the round timer (every further
/// round): offers a `NEW` order to the nearest dispatchable drivers it was not offered to yet, within the round's
/// radius (``Backend/Configuration/Dispatch/radius(ofRound:)``).
struct Dispatcher: Sendable {
    let tracking: any TripTracking
    let settings: Backend.Configuration.Dispatch

    /// What a round did.
    struct Round: Sendable {
        /// The round's number, from 1.
        var number: Int
        /// The drivers it offered the order to (possibly none).
        var drivers: [UUID]
        /// The radius it searched.
        var radius: Double
    }

    /// Runs the next round of `order`; `nil` when the order is no longer `NEW`.
    func runRound(of order: OrderRow, store: any RideStore) async throws -> Round? {
        guard let number = try await store.startDispatchRound(orderID: order.id) else { return nil }
        let radius = self.settings.radius(ofRound: number)
        let search = DriverSearch(maxPositionAge: self.settings.maxPositionAge, excludingOffersOf: order.id)
        let drivers: [UUID]
        if self.settings.useNearbyAPI {
            let devices = try await self.tracking.nearbyDevices(
                NearbyRequest(location: order.pickup.coordinate, radius: radius),
                deadline: .now + self.settings.nearbyTimeout
            )
            let available = try await store.availableDrivers(deviceIDs: devices.map(\.deviceID), search: search)
            var seen = Set<UUID>()
            drivers = devices.compactMap { available[$0.deviceID] }.filter { seen.insert($0).inserted }
                .prefix(self.settings.offerCount).map { $0 }
        } else {
            drivers = try await store.nearestAvailableDrivers(
                near: order.pickup.coordinate,
                radius: radius,
                limit: self.settings.offerCount,
                search: search
            )
        }
        try await store.recordOffers(orderID: order.id, driverIDs: drivers, round: number, ttl: self.settings.offerTTL)
        return Round(number: number, drivers: drivers, radius: radius)
    }
}
