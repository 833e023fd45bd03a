/// A GeoJSON position: `[longitude, latitude]` or `[longitude, latitude, altitude|null]`; extra members (such as the
/// timestamp of a recorded location) are ignored when decoding.
extension Coordinate: Codable {
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let longitude = try container.decode(Double.self)
        let latitude = try container.decode(Double.self)
        var altitude: Double?
        if !container.isAtEnd {
            altitude = try container.decodeIfPresent(Double.self)
        }
        self.init(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(self.longitude)
        try container.encode(self.latitude)
        if let altitude = self.altitude {
            try container.encode(altitude)
        }
    }
}

/// `[lng, lat, alt|null, "recorded_at"]` on the wire; the timestamp may be missing or unparseable (then `nil`).
extension RecordedLocation: Codable {
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let longitude = try container.decode(Double.self)
        let latitude = try container.decode(Double.self)
        var altitude: Double?
        var recordedAt: String?
        while !container.isAtEnd {
            switch try container.decode(JSONValue.self) {
            case .number(let value) where recordedAt == nil: altitude = value
            case .string(let value): recordedAt = value
            default: break
            }
        }
        self.init(
            coordinate: Coordinate(latitude: latitude, longitude: longitude, altitude: altitude),
            recordedAt: recordedAt.flatMap(HyperTrackDate.parse)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(self.coordinate.longitude)
        try container.encode(self.coordinate.latitude)
        if let altitude = self.coordinate.altitude {
            try container.encode(altitude)
        } else {
            try container.encodeNil()
        }
        if let recordedAt = self.recordedAt {
            try container.encode(HyperTrackDate.format(recordedAt))
        } else {
            try container.encodeNil()
        }
    }
}
