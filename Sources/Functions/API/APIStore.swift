import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import TriggerRuntime

/// The API's queries. Every write is one statement (or one transaction), conditional where two requests could
/// race: the first accept wins, a stale start or complete changes nothing.
struct APIStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    func caller(tokenHash: String) async throws -> Caller? {
        let rows = try await self.client.query(
            "SELECT u.id, u.role FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = \(tokenHash)",
            logger: self.logger
        )
        for try await (id, role) in rows.decode((UUID, String).self) {
            return UserRole(rawValue: role).map { Caller(id: id, role: $0) }
        }
        return nil
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
                let rows = try await connection.query(
                    """
                    INSERT INTO users (role, name, phone, device_id, car_model, car_plate)
                    VALUES (\(role.rawValue), \(name), \(phone), \(deviceID), \(car?.model), \(car?.plate))
                    RETURNING id
                    """,
                    logger: logger
                )
                var id: UUID?
                for try await value in rows.decode(UUID.self) { id = value }
                guard let id else { throw APIProblem(.internalServerError, detail: "the user was not created") }
                try await connection.query(
                    "INSERT INTO api_tokens (token_hash, user_id) VALUES (\(hash), \(id))",
                    logger: logger
                )
                return id
            }
            guard let user = try await self.user(id: id) else {
                throw APIProblem(.internalServerError, detail: "the user was not created")
            }
            return RegistrationView(user: user, token: token)
        } catch let error where Self.isUniqueViolation(error) {
            throw APIProblem.conflict("device_id: another driver already registered this device")
        }
    }

    func user(id: UUID) async throws -> UserView? {
        let rows = try await self.client.query(
            "SELECT id, role, name, phone, device_id, car_model, car_plate, available FROM users WHERE id = \(id)",
            logger: self.logger
        )
        for try await (id, role, name, phone, deviceID, model, plate, available) in rows.decode(
            (UUID, String, String, String, String?, String?, String?, Bool).self
        ) {
            let role = UserRole(rawValue: role) ?? .rider
            return UserView(
                id: id,
                role: role,
                name: name,
                phone: phone,
                deviceID: deviceID,
                car: model.flatMap { model in plate.map { CarView(model: model, plate: $0) } },
                available: role == .driver ? available : nil
            )
        }
        return nil
    }

    func setAvailability(driverID: UUID, available: Bool) async throws {
        try await self.client.query(
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
        let rows = try await self.client.query(
            DriverSearchSQL.nearest(latitude: latitude, longitude: longitude, radius: radius, limit: limit),
            logger: self.logger
        )
        var drivers: [NearbyDriverView] = []
        for try await (_, lat, lng, distance) in rows.decode((UUID, Double, Double, Double).self) {
            drivers.append(NearbyDriverView(lat: lat, lng: lng, distance: distance))
        }
        return drivers
    }

    /// Whether `error` (or the error inside a failed transaction) is a unique violation (SQLSTATE 23505).
    static func isUniqueViolation(_ error: any Error) -> Bool {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] == "23505" }
        if let error = error as? PostgresTransactionError, let inner = error.closureError ?? error.commitError {
            return self.isUniqueViolation(inner)
        }
        return false
    }

    static func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }
}
