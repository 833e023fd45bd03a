import Foundation
import Hummingbird

/// A user as the API shows them.
public struct UserView: Codable, Sendable, Hashable, ResponseEncodable {
    /// The identifier.
    public var id: UUID
    /// Rider or driver.
    public var role: UserRole
    /// Display name; `null` until the profile is completed (`PUT /v1/me`).
    public var name: String?
    /// Phone number.
    public var phone: String
    /// The driver's HyperTrack device.
    public var deviceID: String?
    /// The driver's car.
    public var car: CarView?
    /// Whether a driver takes orders (drivers only).
    public var available: Bool?

    private enum CodingKeys: String, CodingKey {
        case id, role, name, phone, car, available
        case deviceID = "device_id"
    }
}

/// A driver's car.
public struct CarView: Codable, Sendable, Hashable {
    /// Car model.
    public var model: String
    /// Licence plate.
    public var plate: String
}
