import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import TriggerRuntime

/// The API's queries: users and tokens here, the inbox in `APIStore+Webhooks.swift`, and every order operation
/// through ``rides`` (the one store of order operations, on the pooled client). Writes that take several
/// statements run in one transaction.
struct APIStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// Where a decline moves an order's round timer (in the decline's transaction).
    let timers: any TimerScheduling

    /// The order operations, on the pooled client.
    var rides: PostgresRideStore<PostgresClient> { PostgresRideStore(executor: self.client, logger: self.logger) }

    /// The driver trips' queries, on the pooled client.
    var trips: TripStore<PostgresClient> { TripStore(executor: self.client, logger: self.logger) }

    func caller(tokenHash: String) async throws -> Caller? {
        try await self.client.row(
            "SELECT u.id, u.role FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = \(tokenHash)",
            logger: self.logger
        ) { row -> Caller? in
            let (id, role) = try row.decode((UUID, String).self)
            return UserRole(rawValue: role).map { Caller(id: id, role: $0) }
        } ?? nil
    }

    /// Inserts a user and a token for them in one transaction; a taken device id is a 409.
    func register(
        role: UserRole,
        name: String,
        phone: String,
        deviceID: String?,
        car: CarView?
    ) async throws -> RegistrationView {
        let token = Tokens.make()
        let hash = Tokens.hash(token)
        let logger = self.logger
        do {
            let id = try await self.client.withTransactionClosedOnFailure(logger: logger) { connection -> UUID in
                let id = try await connection.row(
                    """
                    INSERT INTO users (role, name, phone, device_id, car_model, car_plate)
                    VALUES (\(role.rawValue), \(name), \(phone), \(deviceID), \(car?.model), \(car?.plate))
                    RETURNING id
                    """,
                    logger: logger
                ) { try $0.decode(UUID.self) }
                guard let id else { throw APIProblem(.internalServerError, detail: "the user was not created") }
                try await connection.count(
                    "INSERT INTO api_tokens (token_hash, user_id) VALUES (\(hash), \(id))",
                    logger: logger
                )
                return id
            }
            guard let user = try await self.user(id: id) else {
                throw APIProblem(.internalServerError, detail: "the user was not created")
            }
            return RegistrationView(user: user, token: token)
        } catch let error where PostgresErrors.isUniqueViolation(error) {
            throw APIProblem.conflict("device_id: another driver already registered this device")
        }
    }

    func user(id: UUID) async throws -> UserView? {
        try await self.client.row(
            "SELECT id, role, name, phone, device_id, car_model, car_plate, available FROM users WHERE id = \(id)",
            logger: self.logger
        ) { row in
            let (id, role, name, phone, deviceID, model, plate, available) = try row.decode(
                (UUID, String, String, String, String?, String?, String?, Bool).self
            )
            let userRole = UserRole(rawValue: role) ?? .rider
            return UserView(
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

    func setAvailability(driverID: UUID, available: Bool) async throws {
        try await self.client.count(
            "UPDATE users SET available = \(available) WHERE id = \(driverID) AND role = 'driver'",
            logger: self.logger
        )
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
            .map { NearbyDriverView(lat: $0.lat, lng: $0.lng, distance: $0.distance) }
    }
}
