import Foundation

/// A WGS84 position (degrees).
struct Coordinate: Codable, Equatable, Sendable {
    var longitude: Double
    var latitude: Double

    /// GeoJSON coordinates `[lng, lat]`, rounded to 6 decimals (about 10 cm).
    var pair: JSON { [.number(Geo.round6(longitude)), .number(Geo.round6(latitude))] }

    /// A GeoJSON `Point` geometry.
    var point: JSON { ["type": "Point", "coordinates": pair] }

    /// Reads `[lng, lat(, alt)]`.
    init?(pair: JSON?) {
        guard let values = pair?.arrayValue, values.count >= 2, let lng = values[0].doubleValue,
            let lat = values[1].doubleValue, (-180...180).contains(lng), (-90...90).contains(lat)
        else { return nil }
        self.init(longitude: lng, latitude: lat)
    }

    init(longitude: Double, latitude: Double) {
        self.longitude = longitude
        self.latitude = latitude
    }
}

/// Small, deterministic geometry helpers (spherical earth).
enum Geo {
    static let earthRadius = 6_371_008.8

    static func round6(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }

    /// Great-circle distance in metres.
    static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let lat1 = a.latitude * .pi / 180
        let lat2 = b.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLng = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLng / 2) * sin(dLng / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// Initial bearing from `a` to `b`, degrees clockwise from north in [0, 360).
    static func bearing(_ a: Coordinate, _ b: Coordinate) -> Double {
        let lat1 = a.latitude * .pi / 180
        let lat2 = b.latitude * .pi / 180
        let dLng = (b.longitude - a.longitude) * .pi / 180
        let y = sin(dLng) * cos(lat2)
        let x = cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(dLng)
        let degrees = atan2(y, x) * 180 / .pi
        return (degrees + 360).truncatingRemainder(dividingBy: 360)
    }

    /// Linear interpolation (good enough over city distances).
    static func interpolate(_ a: Coordinate, _ b: Coordinate, _ fraction: Double) -> Coordinate {
        Coordinate(
            longitude: a.longitude + (b.longitude - a.longitude) * fraction,
            latitude: a.latitude + (b.latitude - a.latitude) * fraction
        )
    }

    /// Moves `c` by metres north and east.
    static func offset(_ c: Coordinate, north: Double, east: Double) -> Coordinate {
        let dLat = north / earthRadius * 180 / .pi
        let dLng = east / (earthRadius * cos(c.latitude * .pi / 180)) * 180 / .pi
        return Coordinate(longitude: c.longitude + dLng, latitude: c.latitude + dLat)
    }

    /// Centre and radius of a GeoJSON `Point` (with `radius`) or `Polygon` geometry; `nil` when invalid.
    ///
    /// A polygon is approximated by its vertex centroid and the distance to its farthest vertex.
    static func area(geometry: JSON?, radius: Double?, defaultRadius: Double) -> (Coordinate, Double)? {
        guard let geometry, let type = geometry["type"]?.stringValue else { return nil }
        switch type {
        case "Point":
            guard let center = Coordinate(pair: geometry["coordinates"]) else { return nil }
            return (center, radius ?? defaultRadius)
        case "Polygon":
            guard let ring = geometry["coordinates"]?.arrayValue?.first?.arrayValue, ring.count >= 4 else { return nil }
            let points = ring.compactMap { Coordinate(pair: $0) }
            guard points.count == ring.count, points.first == points.last else { return nil }
            let vertices = points.dropLast()
            let center = Coordinate(
                longitude: vertices.map(\.longitude).reduce(0, +) / Double(vertices.count),
                latitude: vertices.map(\.latitude).reduce(0, +) / Double(vertices.count)
            )
            return (center, vertices.map { distance(center, $0) }.max() ?? defaultRadius)
        default:
            return nil
        }
    }

    private static let streets = [
        "Market", "Mission", "Valencia", "Oak", "Pine", "Cedar", "Harbor", "Lake", "Hill", "Park", "Elm", "Maple",
        "Bay", "Sunset", "Ocean", "Union",
    ]
    private static let suffixes = ["St", "Ave", "Blvd", "Way"]

    /// A fake but deterministic street address for a position (the emulator's "reverse geocoder").
    static func address(for c: Coordinate) -> String {
        let key = "\(String(format: "%.5f", c.longitude)),\(String(format: "%.5f", c.latitude))"
        let hash = StableHash.fnv1a(key)
        let number = 1 + Int(hash % 1999)
        let street = streets[Int((hash >> 16) % UInt64(streets.count))]
        let suffix = suffixes[Int((hash >> 24) % UInt64(suffixes.count))]
        return "\(number) \(street) \(suffix), Emulator City, EC 00000, USA"
    }
}

/// FNV-1a, stable across runs and platforms (unlike `Hasher`).
enum StableHash {
    static func fnv1a(_ string: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in string.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
