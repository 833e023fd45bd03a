import Foundation
import HyperTrackAPI
import Logging
import PostgresNIO
import TriggerRuntime

/// Dispatch as a loop in time, shared by the API's booking (round 1 and its timers, in the booking's own statement:
/// ``PreparedStatements/BookAndOffer``, with a ``BookingRound``), `dispatchOrder` (round 1 of an order booked
/// otherwise: with HyperTrack's Nearby API, or by ``RideStore/book(_:)``), the round timer (``DispatchRound``, every
/// further round) and the API's decline.
///
/// A round offers a `NEW` order to the nearest dispatchable drivers it was not offered to yet, within the round's
/// radius (``Backend/Configuration/Dispatch/radius(ofRound:)``), and sets the order's round timer to when those
/// offers expire. The timer, when it fires, finds either an offer still open (a driver who came online meanwhile
/// got one: ``OfferWaitingOrders``), and waits for it, or none, and runs the next round. A round that finds nobody
/// still sets the timer, so the area is searched again (drivers move and come online) until the window timer
/// (``DispatchWindow``) cancels the order: after `offerTTL`, then less often while rounds keep finding nobody
/// (``Backend/Configuration/Dispatch/delay(afterEmptyRounds:)``).
struct Dispatcher: Sendable {
    /// HyperTrack, for its Nearby API (`useNearbyAPI`).
    let tracking: any TripTracking
    let timers: any TimerScheduling
    let settings: Backend.Configuration.Dispatch

    /// The timer key of an order's round timer (one pending per order: scheduling replaces it).
    static let roundKey = "round"
    /// The timer key of an order's window timer.
    static let windowKey = "window"

    /// What a round did.
    struct Round: Sendable {
        /// The round's number, from 1.
        var number: Int
        /// The drivers it offered the order to (possibly none).
        var drivers: [UUID]
        /// The radius it searched.
        var radius: Double
    }

    /// The document key of an order's timers: its id as the capture trigger writes it.
    static func document(_ orderID: UUID) -> String { orderID.uuidString.lowercased() }

    /// Runs the next round of `order` and sets its round timer to when the round's offers expire; `nil` when the
    /// order is no longer `NEW`.
    func runRound(of order: OrderRow, store: any RideStore, transaction: PostgresConnection?) async throws -> Round? {
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
        var next = self.settings.offerTTL
        if drivers.isEmpty {
            let emptyRounds = number - (try await store.lastOfferedRound(orderID: order.id))
            next = self.settings.delay(afterEmptyRounds: emptyRounds)
        }
        try await self.scheduleRound(of: order.id, due: .after(next), transaction: transaction)
        return Round(number: number, drivers: drivers, radius: radius)
    }

    /// Sets (or moves) the order's round timer.
    func scheduleRound(of orderID: UUID, due: TimerDue, transaction: PostgresConnection?) async throws {
        try await self.timers.schedule(
            DispatchRound.name,
            document: Self.document(orderID),
            key: Self.roundKey,
            due: due,
            payload: nil,
            ifExists: .replace,
            on: transaction
        )
    }

    /// Sets the order's window timer, unless it has one (a retried first round keeps the first deadline).
    func scheduleWindow(of order: OrderRow, transaction: PostgresConnection?) async throws {
        let due: TimerDue = order.createdAt.map { .at($0.addingTimeInterval(self.settings.window.seconds)) }
            ?? .after(self.settings.window)
        try await self.timers.schedule(
            DispatchWindow.name,
            document: Self.document(order.id),
            key: Self.windowKey,
            due: due,
            payload: nil,
            ifExists: .keep,
            on: transaction
        )
    }
}

/// The first dispatch round the API's booking runs in its own statement (``PreparedStatements/BookAndOffer``): the
/// search, the offers and the round's timers as ``Dispatcher`` runs and sets them, with the local position index.
///
/// **Why in the booking.** As a trigger function (`dispatchOrder`), the first offers waited for the order's capture
/// to be claimed by a worker, then for the worker's transaction: in the 56th session's ten-minute city
/// (BENCHMARKS.md, R1) the booking's commit → the offers' transaction start took p50 18, p99 137 ms, and the offers'
/// own transaction p50 23, p99 137 ms, of a booking → offer seen p99 of 387 ms. The round is an index walk and a few
/// inserts that need nothing outside the database; HyperTrack's Nearby API (`useNearbyAPI`) is an HTTP call that can
/// poll for seconds, so with it the booking stays one insert and `dispatchOrder` runs the round.
struct BookingRound: Sendable {
    var settings: Backend.Configuration.Dispatch
    /// The workers' channel the round's timers notify (``Backend/Configuration/channel``).
    var channel: String
}
