import Foundation

/// A `users` row (riders and drivers) as `registerDriverDevice` receives it.
public struct UserRow: Sendable, Hashable, Codable {
    /// The user's id.
    public var id: UUID
    /// `rider` or `driver`.
    public var role: UserRole
    /// Display name.
    public var name: String
    /// Phone number.
    public var phone: String
    /// The HyperTrack device of a driver.
    public var deviceID: String?
    /// A driver's car model.
    public var carModel: String?
    /// A driver's licence plate.
    public var carPlate: String?

    /// Creates a user row.
    public init(
        id: UUID,
        role: UserRole,
        name: String,
        phone: String,
        deviceID: String? = nil,
        carModel: String? = nil,
        carPlate: String? = nil
    ) {
        self.id = id
        self.role = role
        self.name = name
        self.phone = phone
        self.deviceID = deviceID
        self.carModel = carModel
        self.carPlate = carPlate
    }

    private enum CodingKeys: String, CodingKey {
        case id, role, name, phone
        case deviceID = "device_id"
        case carModel = "car_model"
        case carPlate = "car_plate"
    }
}

/// Who a user is.
public enum UserRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Books rides.
    case rider
    /// Drives them.
    case driver
}
