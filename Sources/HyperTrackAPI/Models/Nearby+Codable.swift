import Foundation

extension NearbyRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case location, radius, metadata, devices, deep
        case lastUpdatedWithin = "last_updated_within"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard case .point(let location) = try container.decode(GeoJSONGeometry.self, forKey: .location) else {
            throw DecodingError.dataCorruptedError(
                forKey: .location,
                in: container,
                debugDescription: "The Nearby location is a GeoJSON Point"
            )
        }
        self.init(
            location: location,
            radius: try container.decode(Double.self, forKey: .radius),
            metadata: try container.decodeMetadata(forKey: .metadata),
            devices: try container.decodeIfPresent([String].self, forKey: .devices),
            lastUpdatedWithin: try container.decodeIfPresent(Double.self, forKey: .lastUpdatedWithin),
            deep: try container.decodeIfPresent(Bool.self, forKey: .deep)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(GeoJSONGeometry.point(self.location), forKey: .location)
        try container.encode(self.radius, forKey: .radius)
        try container.encodeIfPresent(self.metadata, forKey: .metadata)
        try container.encodeIfPresent(self.devices, forKey: .devices)
        try container.encodeIfPresent(self.lastUpdatedWithin, forKey: .lastUpdatedWithin)
        try container.encodeIfPresent(self.deep, forKey: .deep)
    }
}

extension NearbyDevice: Codable {
    private enum CodingKeys: String, CodingKey {
        case location, metadata, distance, geometry
        case deviceID = "device_id"
        case recordedAt = "recorded_at"
        case requestID = "nearby_devices_request_id"
        case deviceInfo = "device_info"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var location: Coordinate?
        var recordedAt: Date?
        if container.contains(.location), try !container.decodeNil(forKey: .location) {
            let nested = try container.nestedContainer(keyedBy: CodingKeys.self, forKey: .location)
            location = try nested.decodeIfPresent(GeoJSONGeometry.self, forKey: .geometry)?.point
            recordedAt = try nested.decodeIfPresent(Date.self, forKey: .recordedAt)
        }
        self.init(
            deviceID: try container.decode(String.self, forKey: .deviceID),
            location: location,
            metadata: try container.decodeMetadata(forKey: .metadata),
            recordedAt: recordedAt,
            requestID: try container.decodeIfPresent(String.self, forKey: .requestID),
            distance: try container.decodeIfPresent(Double.self, forKey: .distance),
            deviceInfo: try container.decodeIfPresent(DeviceInfo.self, forKey: .deviceInfo)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.deviceID, forKey: .deviceID)
        if self.location != nil || self.recordedAt != nil {
            var nested = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .location)
            try nested.encodeIfPresent(self.location.map(GeoJSONGeometry.point), forKey: .geometry)
            try nested.encodeIfPresent(self.recordedAt, forKey: .recordedAt)
        }
        try container.encodeIfPresent(self.metadata, forKey: .metadata)
        try container.encodeIfPresent(self.requestID, forKey: .requestID)
        try container.encodeIfPresent(self.distance, forKey: .distance)
        try container.encodeIfPresent(self.deviceInfo, forKey: .deviceInfo)
    }
}
