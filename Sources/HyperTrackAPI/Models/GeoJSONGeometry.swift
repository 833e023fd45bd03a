/// A GeoJSON geometry as HyperTrack uses it: points (devices, destinations, geofences), polygons (geofences,
/// destinations) and line strings (routes). Any other type is kept raw.
public enum GeoJSONGeometry: Sendable, Hashable, Codable {
    /// `{"type": "Point", "coordinates": [lng, lat(, alt)]}`.
    case point(Coordinate)
    /// `{"type": "LineString", "coordinates": [[lng, lat], …]}`.
    case lineString([Coordinate])
    /// `{"type": "Polygon", "coordinates": [[[lng, lat], …]]}`: rings, the first is the outline, each closed.
    case polygon([[Coordinate]])
    /// A geometry type this client does not model, kept as JSON.
    case other(JSONValue)

    private enum CodingKeys: String, CodingKey {
        case type, coordinates
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decodeIfPresent(String.self, forKey: .type)
        switch type {
        case "Point":
            self = .point(try container.decode(Coordinate.self, forKey: .coordinates))
        case "LineString":
            self = .lineString(try container.decode([Coordinate].self, forKey: .coordinates))
        case "Polygon":
            self = .polygon(try container.decode([[Coordinate]].self, forKey: .coordinates))
        default:
            self = .other(try JSONValue(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .point(let coordinate):
            try container.encode("Point", forKey: .type)
            try container.encode(coordinate, forKey: .coordinates)
        case .lineString(let coordinates):
            try container.encode("LineString", forKey: .type)
            try container.encode(coordinates, forKey: .coordinates)
        case .polygon(let rings):
            try container.encode("Polygon", forKey: .type)
            try container.encode(rings, forKey: .coordinates)
        case .other(let raw):
            try raw.encode(to: encoder)
        }
    }

    /// The position, if this is a point.
    public var point: Coordinate? {
        if case .point(let coordinate) = self { return coordinate }
        return nil
    }
}

/// A `LineString` of recorded locations (`[lng, lat, alt|null, "recorded_at"]` 4-tuples).
struct RecordedLineString: Codable {
    var coordinates: [RecordedLocation]

    private enum CodingKeys: String, CodingKey {
        case type, coordinates
    }

    init(coordinates: [RecordedLocation]) {
        self.coordinates = coordinates
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.coordinates = try container.decodeIfPresent([RecordedLocation].self, forKey: .coordinates) ?? []
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("LineString", forKey: .type)
        try container.encode(self.coordinates, forKey: .coordinates)
    }
}
