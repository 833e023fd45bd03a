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
        case updated
        case deviceTaken
    }

    /// Replaces the caller's profile, unless their device is bound to another account.
    func updateProfile(userID: UUID, profile: Profile) async throws -> ProfileUpdate {
        let logger = self.logger
        do {
            return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
                if let device = profile.deviceID {
                    let holder = try await connection.row(
                        "SELECT id FROM users WHERE device_id = \(device) AND id <> \(userID) FOR UPDATE",
                        logger: logger
                    ) { try $0.decode(UUID.self) }
                    guard holder == nil else { return .deviceTaken }
                }
                try await connection.count(
                    """
                    UPDATE users SET name = \(profile.name), car_model = \(profile.car?.model),
                        car_plate = \(profile.car?.plate), device_id = \(profile.deviceID)
                    WHERE id = \(userID)
                    RETURNING id
                    """,
                    logger: logger
                )
                return .updated
            }
        } catch let error where PostgresErrors.isUniqueViolation(error) {
            // Two accounts claimed one device at once: the unique index refused the second, in its transaction.
            return .deviceTaken
        }
    }
}
