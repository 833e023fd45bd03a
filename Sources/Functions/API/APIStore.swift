import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import TriggerRuntime

/// The API's queries: users here (accounts and tokens in ``AccountStore``), the inbox in `APIStore+Webhooks.swift`, and every order operation
/// through ``rides`` (the one store of order operations, on the pooled client). Writes that take several
/// statements run in one transaction.
struct APIStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// Where a decline moves an order's round timer (in the decline's transaction).
    let timers: any TimerScheduling
    /// The first dispatch round a booking runs in its own statement; `nil` leaves it to `dispatchOrder`
    /// (``Backend/bookingRound``).
    let bookingRound: BookingRound?
    /// How late after its offer's expiry an accept still wins (``Backend/Configuration/Dispatch/acceptGrace``).
    let acceptGrace: Duration
    /// How long a still driver's stored position stands for their reports of the same place, when the request
    /// applies its delivery (``WebhookStatements/Positions``).
    let stillRefresh: Duration

    /// The order operations, on the pooled client.
    var rides: PostgresRideStore<PostgresClient> { PostgresRideStore(executor: self.client, logger: self.logger) }

    /// The driver trips' queries, on the pooled client.
    var trips: TripStore<PostgresClient> { TripStore(executor: self.client, logger: self.logger) }

    func user(id: UUID) async throws -> UserView? {
        try await self.client.row(Prepared(PreparedStatements.User.self, id), logger: self.logger) {
            try UserView(profileRow: $0)
        }
    }

    /// Sets a driver's availability; `false` when they would go online without a complete profile (a driver
    /// without a device has no position and must never be offered an order).
    func setAvailability(driverID: UUID, available: Bool) async throws -> Bool {
        try await self.client.count(
            """
            UPDATE users SET available = \(available)
            WHERE id = \(driverID) AND role = 'driver' AND (NOT \(available) OR (device_id IS NOT NULL AND name IS NOT NULL))
            RETURNING id
            """,
            logger: self.logger
        ) == 1
    }

    func nearbyDrivers(
        latitude: Double,
        longitude: Double,
        radius: Double,
        limit: Int
    ) async throws
        -> [NearbyDriverView]
    {
        try await self.rides.nearbyDrivers(latitude: latitude, longitude: longitude, radius: radius, limit: limit)
            .map { NearbyDriverView(approximating: $0.lat, $0.lng, distance: $0.distance) }
    }
}

extension UserView {
    /// The profile of a row of ``PreparedStatements/userColumns``.
    init(profileRow row: PostgresRow) throws {
        let (id, role, name, phone, deviceID, model, plate, available) = try row.decode(
            (UUID, String, String?, String, String?, String?, String?, Bool).self
        )
        let userRole = UserRole(rawValue: role) ?? .rider
        self.init(
            id: id,
            role: userRole,
            name: name,
            phone: phone,
            deviceID: deviceID,
            car: model.flatMap { model in plate.map { CarView(model: model, plate: $0) } },
            available: userRole == .driver ? available : nil
        )
    }
}
