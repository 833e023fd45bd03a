/// A WGS-84 position. On the wire it is a GeoJSON position: `[longitude, latitude]` or `[lng, lat, altitude]`.
public struct Coordinate: Sendable, Hashable {
    /// Degrees north, -90...90.
    public var latitude: Double
    /// Degrees east, -180...180.
    public var longitude: Double
    /// Metres above sea level, when known.
    public var altitude: Double?

    /// Creates a coordinate.
    /// - Parameters:
    ///   - latitude: Degrees north.
    ///   - longitude: Degrees east.
    ///   - altitude: Metres, when known.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}
