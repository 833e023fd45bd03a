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
