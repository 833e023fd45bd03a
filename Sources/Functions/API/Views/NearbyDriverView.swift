import Hummingbird

/// A nearby car on a rider's map: an approximate position only, no id or name, so the list cannot be used to follow
/// a driver (or, by competitors, to see exactly where drivers are).
public struct NearbyDriverView: Codable, Sendable, Hashable {
    /// Positions are rounded to 0.001° (about 110 m north-south, 70 m east-west in Berlin), distances to 100 m.
    static let degreesPerStep = 1000.0

    /// Degrees north.
    public var lat: Double
    /// Degrees east.
    public var lng: Double
    /// Metres from the searched point.
    public var distance: Double

    /// The rounded view of an exact position.
    init(approximating lat: Double, _ lng: Double, distance: Double) {
        self.lat = (lat * Self.degreesPerStep).rounded() / Self.degreesPerStep
        self.lng = (lng * Self.degreesPerStep).rounded() / Self.degreesPerStep
        self.distance = (distance / 100).rounded() * 100
    }
}

/// `GET /v1/drivers/nearby`.
public struct NearbyDriverList: Codable, Sendable, ResponseEncodable {
    /// Nearby drivers, nearest first.
    public var drivers: [NearbyDriverView]
}
