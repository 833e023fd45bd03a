import Foundation

extension CreateTripRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case destination, metadata, geofences
        case deviceID = "device_id"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            deviceID: try container.decode(String.self, forKey: .deviceID),
            destination: try container.decodeIfPresent(Destination.self, forKey: .destination),
            metadata: try container.decodeMetadata(forKey: .metadata),
            geofences: try container.decodeIfPresent([GeofenceDefinition].self, forKey: .geofences)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.deviceID, forKey: .deviceID)
        try container.encodeIfPresent(self.destination, forKey: .destination)
        try container.encodeIfPresent(self.metadata, forKey: .metadata)
        try container.encodeIfPresent(self.geofences, forKey: .geofences)
    }
}

extension CreateTripRequest.Destination: Codable {
    private enum CodingKeys: String, CodingKey {
        case geometry, radius
        case scheduledAt = "scheduled_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let geometry = try container.decode(GeoJSONGeometry.self, forKey: .geometry)
        let point: Coordinate
        var polygon: [[Coordinate]]?
        switch geometry {
        case .point(let coordinate):
            point = coordinate
        case .polygon(let rings) where rings.first?.isEmpty == false:
            point = rings[0][0]
            polygon = rings
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .geometry,
                in: container,
                debugDescription: "A destination is a Point or a Polygon"
            )
        }
        self.init(
            point: point,
            radius: try container.decodeIfPresent(Int.self, forKey: .radius),
            scheduledAt: try container.decodeIfPresent(Date.self, forKey: .scheduledAt)
        )
        self.polygon = polygon
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let geometry: GeoJSONGeometry = self.polygon.map(GeoJSONGeometry.polygon) ?? .point(self.point)
        try container.encode(geometry, forKey: .geometry)
        try container.encodeIfPresent(self.radius, forKey: .radius)
        try container.encodeIfPresent(self.scheduledAt, forKey: .scheduledAt)
    }
}
