import Foundation

/// A `users` row (riders and drivers) as `registerDriverDevice` receives it.
public struct UserRow: Sendable, Hashable, Codable {
    /// The user's id.
    public var id: UUID
    /// `rider` or `driver`.
    public var role: UserRole
    /// Display name; `nil` until the user completes their profile (`PUT /v1/me`).
    public var name: String?
    /// Phone number.
    public var phone: String
    /// The HyperTrack device of a driver.
    public var deviceID: String?
    /// A driver's car model.
    public var carModel: String?
    /// A driver's licence plate.
    public var carPlate: String?
    /// Whether a driver is online (takes orders).
    public var available: Bool?
    /// The last `device_status` HyperTrack reported for a driver's device (`nil`: never reported).
    public var deviceStatus: String?

    /// Whether dispatch may offer this user an order, position and active orders aside: a driver who is online and
    /// whose device is tracking (or never reported a status).
    public var isDispatchable: Bool {
        self.role == .driver && self.available == true && (self.deviceStatus == nil || self.deviceStatus == "active")
    }

    /// Creates a user row.
    public init(
        id: UUID,
        role: UserRole,
        name: String?,
        phone: String,
        deviceID: String? = nil,
        carModel: String? = nil,
        carPlate: String? = nil,
        available: Bool? = nil,
        deviceStatus: String? = nil
    ) {
        self.id = id
        self.role = role
        self.name = name
        self.phone = phone
        self.deviceID = deviceID
        self.carModel = carModel
        self.carPlate = carPlate
        self.available = available
        self.deviceStatus = deviceStatus
    }

    private enum CodingKeys: String, CodingKey {
        case id, role, name, phone
        case deviceID = "device_id"
        case carModel = "car_model"
        case carPlate = "car_plate"
        case available
        case deviceStatus = "device_status"
    }
}

/// Who a user is.
public enum UserRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Books rides.
    case rider
    /// Drives them.
    case driver
}
