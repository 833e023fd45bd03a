import Hummingbird

/// A nearby driver on the rider's map: a position only.
public struct NearbyDriverView: Codable, Sendable, Hashable {
    /// Degrees north.
    public var lat: Double
    /// Degrees east.
    public var lng: Double
    /// Metres from the searched point.
    public var distance: Double
}

/// `GET /v1/drivers/nearby`.
public struct NearbyDriverList: Codable, Sendable, ResponseEncodable {
    /// Nearby drivers, nearest first.
    public var drivers: [NearbyDriverView]
}
