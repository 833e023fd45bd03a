import Hummingbird

/// `PUT /v1/drivers/me/availability`.
public struct AvailabilityView: Codable, Sendable, ResponseEncodable {
    /// Whether a driver takes orders (drivers only).
    public var available: Bool
}
