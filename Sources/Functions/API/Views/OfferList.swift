import Hummingbird

/// Offers open to a driver.
public struct OfferList: Codable, Sendable, ResponseEncodable {
    /// Orders offered to the driver.
    public var offers: [OrderView]
}
