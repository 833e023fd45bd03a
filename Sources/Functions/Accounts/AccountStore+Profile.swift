import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// Profiles: what a user completes after their first sign-in. A driver's `device_id` is bound to their account on
/// first use: another account naming it gets 409 before anything is written, so `registerDriverDevice` (a trigger
/// on the row) never renames a device that belongs to someone else. Naming a new device unbinds the old one.
extension AccountStore {
    /// A user's profile as `PUT /v1/me` sets it.
    struct Profile: Sendable {
        var name: String
        var car: CarView?
        var deviceID: String?
    }

    /// The outcome of a profile update.
    enum ProfileUpdate: Sendable {
        /// The profile as the update left it (`nil`: the account is gone).
        case updated(UserView?)
        case deviceTaken
    }

    /// Replaces the caller's profile, unless their device is bound to another account, and returns it as written
    /// (the update's `RETURNING`: `PUT /v1/me` read it back in a round trip of its own). Without a device there is
    /// nothing to check first: the update runs alone, outside a transaction of its own (a rider's profile was
    /// `BEGIN`, the update, `COMMIT` and the read; it is one statement).
    func updateProfile(userID: UUID, profile: Profile) async throws -> ProfileUpdate {
        let logger = self.logger
        let update: PostgresQuery = """
            UPDATE users SET name = \(profile.name), car_model = \(profile.car?.model),
                car_plate = \(profile.car?.plate), device_id = \(profile.deviceID)
            WHERE id = \(userID)
            RETURNING \(unescaped: PreparedStatements.userColumns)
            """
        do {
            guard let device = profile.deviceID else {
                return .updated(try await self.client.row(update, logger: logger) { try UserView(profileRow: $0) })
            }
            return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
                let holder = try await connection.row(
                    "SELECT id FROM users WHERE device_id = \(device) AND id <> \(userID) FOR UPDATE",
                    logger: logger
                ) { try $0.decode(UUID.self) }
                guard holder == nil else { return .deviceTaken }
                return .updated(try await connection.row(update, logger: logger) { try UserView(profileRow: $0) })
            }
        } catch let error where PostgresErrors.isUniqueViolation(error) {
            // Two accounts claimed one device at once: the unique index refused the second, in its transaction.
            return .deviceTaken
        }
    }
}
