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
