import Foundation

/// One location of a drive, as the device reported it (HyperTrack's `location` webhook: position, time, speed and
/// bearing), and one point of a stored, simplified path.
public struct TripPoint: Sendable, Hashable, Codable {
    /// When the device recorded it.
    public var time: Date
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// Metres per second, as the device measured it; `nil` when the event had none (then derived from positions).
    public var speed: Double?
    /// Degrees clockwise from north, as the device measured it; `nil` when the event had none.
    public var bearing: Double?
    /// The posted limit in km/h where it was recorded, when its location said (`data.posted_limit_kmh`, an
    /// extension the local emulator sends; HyperTrack does not): used for speeding instead of the configured
    /// default. Not stored with a path's points.
    public var postedLimit: Double? = nil

    /// Creates a point.
    /// - Parameters:
    ///   - time: When it was recorded.
    ///   - latitude: Degrees north.
    ///   - longitude: Degrees east.
    ///   - speed: Metres per second, if known.
    ///   - bearing: Degrees clockwise from north, if known.
    ///   - postedLimit: The posted limit in km/h there, if the location said.
    public init(
        time: Date,
        latitude: Double,
        longitude: Double,
        speed: Double? = nil,
        bearing: Double? = nil,
        postedLimit: Double? = nil
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.speed = speed
        self.bearing = bearing
        self.postedLimit = postedLimit
    }

    private enum CodingKeys: String, CodingKey {
        case time, speed, bearing
        case latitude = "lat"
        case longitude = "lng"
    }
}

/// Distances on the earth, for paths of a few kilometres.
enum Earth {
    /// The mean radius in metres (IUGG).
    static let radius = 6_371_008.8

    /// The great-circle distance in metres between two points (haversine).
    static func distance(_ a: TripPoint, _ b: TripPoint) -> Double {
        let φ1 = a.latitude * .pi / 180
        let φ2 = b.latitude * .pi / 180
        let dφ = φ2 - φ1
        let dλ = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * radius * asin(min(1, sqrt(h)))
    }

    /// The length in metres of a path.
    static func length(_ points: [TripPoint]) -> Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + distance($1.0, $1.1) }
    }

    /// The initial bearing from `a` to `b`, degrees clockwise from north in [0, 360).
    static func bearing(_ a: TripPoint, _ b: TripPoint) -> Double {
        let φ1 = a.latitude * .pi / 180
        let φ2 = b.latitude * .pi / 180
        let dλ = (b.longitude - a.longitude) * .pi / 180
        let y = sin(dλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ)
        let degrees = atan2(y, x) * 180 / .pi
        return (degrees + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The point `distance` metres from `origin` along `bearing` degrees (for building synthetic paths).
    static func destination(
        from origin: TripPoint,
        bearing: Double,
        distance: Double
    ) -> (latitude: Double, longitude: Double) {
        let δ = distance / radius
        let θ = bearing * .pi / 180
        let φ1 = origin.latitude * .pi / 180
        let λ1 = origin.longitude * .pi / 180
        let φ2 = asin(sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
        return (φ2 * 180 / .pi, λ2 * 180 / .pi)
    }
}
