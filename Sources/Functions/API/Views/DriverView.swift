import Foundation

/// The driver of an order, with their car.
public struct DriverView: Codable, Sendable, Hashable {
    /// The identifier.
    public var id: UUID
    /// Display name.
    public var name: String
    /// Phone number.
    public var phone: String
    /// The driver's car.
    public var car: CarView
}

extension DriverView {
    /// The view of a driver's user row. Drivers go online only with a complete profile, so a missing name, model or
    /// plate (a row written outside the API) shows as empty.
    /// - Parameter user: The `users` row.
    init(user: UserRow) {
        self.init(
            id: user.id,
            name: user.name ?? "",
            phone: user.phone,
            car: CarView(model: user.carModel ?? "", plate: user.carPlate ?? "")
        )
    }
}
