import Foundation

extension TripSummary: Codable {
    private enum CodingKeys: String, CodingKey {
        case distance, duration, locations, markers
        case startedAt = "started_at"
        case completedAt = "completed_at"
        case deviceID = "device_id"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            distance: try container.decodeIfPresent(Double.self, forKey: .distance),
            duration: try container.decodeIfPresent(Double.self, forKey: .duration),
            startedAt: try container.decodeIfPresent(Date.self, forKey: .startedAt),
            completedAt: try container.decodeIfPresent(Date.self, forKey: .completedAt),
            locations: try container.decodeIfPresent(RecordedLineString.self, forKey: .locations)?.coordinates ?? [],
            markers: try container.decodeIfPresent([Marker].self, forKey: .markers) ?? [],
            deviceID: try container.decodeIfPresent(String.self, forKey: .deviceID)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(self.distance, forKey: .distance)
        try container.encodeIfPresent(self.duration, forKey: .duration)
        try container.encodeIfPresent(self.startedAt, forKey: .startedAt)
        try container.encodeIfPresent(self.completedAt, forKey: .completedAt)
        try container.encode(RecordedLineString(coordinates: self.locations), forKey: .locations)
        try container.encode(self.markers, forKey: .markers)
        try container.encodeIfPresent(self.deviceID, forKey: .deviceID)
    }
}
