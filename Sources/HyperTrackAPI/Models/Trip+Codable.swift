import Foundation

extension Trip: Codable {
    private enum CodingKeys: String, CodingKey {
        case tripID = "trip_id"
        case deviceID = "device_id"
        case status
        case startedAt = "started_at"
        case completedAt = "completed_at"
        case views, metadata, destination, estimate, summary, geofences
        case deviceInfo = "device_info"
        case etaRelevance = "eta_relevance_data"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            tripID: try container.decode(String.self, forKey: .tripID),
            deviceID: try container.decodeIfPresent(String.self, forKey: .deviceID) ?? "",
            status: try container.decodeIfPresent(TripStatus.self, forKey: .status) ?? .active,
            startedAt: try container.decodeIfPresent(Date.self, forKey: .startedAt),
            completedAt: try container.decodeIfPresent(Date.self, forKey: .completedAt),
            views: try container.decodeIfPresent(Views.self, forKey: .views),
            metadata: try container.decodeMetadata(forKey: .metadata),
            destination: try container.decodeIfPresent(Destination.self, forKey: .destination),
            estimate: try container.decodeIfPresent(Estimate.self, forKey: .estimate),
            summary: try container.decodeIfPresent(TripSummary.self, forKey: .summary),
            deviceInfo: try container.decodeIfPresent(DeviceInfo.self, forKey: .deviceInfo),
            geofences: try container.decodeIfPresent([Geofence].self, forKey: .geofences),
            etaRelevance: try container.decodeIfPresent(ETARelevance.self, forKey: .etaRelevance)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.tripID, forKey: .tripID)
        try container.encode(self.deviceID, forKey: .deviceID)
        try container.encode(self.status, forKey: .status)
        try container.encodeIfPresent(self.startedAt, forKey: .startedAt)
        try container.encodeIfPresent(self.completedAt, forKey: .completedAt)
        try container.encodeIfPresent(self.views, forKey: .views)
        try container.encodeIfPresent(self.metadata, forKey: .metadata)
        try container.encodeIfPresent(self.destination, forKey: .destination)
        try container.encodeIfPresent(self.estimate, forKey: .estimate)
        try container.encodeIfPresent(self.summary, forKey: .summary)
        try container.encodeIfPresent(self.deviceInfo, forKey: .deviceInfo)
        try container.encodeIfPresent(self.geofences, forKey: .geofences)
        try container.encodeIfPresent(self.etaRelevance, forKey: .etaRelevance)
    }
}

extension Trip.Views: Codable {
    private enum CodingKeys: String, CodingKey {
        case shareURL = "share_url"
        case embedURL = "embed_url"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            shareURL: try container.decodeIfPresent(String.self, forKey: .shareURL),
            embedURL: try container.decodeIfPresent(String.self, forKey: .embedURL)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(self.shareURL, forKey: .shareURL)
        try container.encodeIfPresent(self.embedURL, forKey: .embedURL)
    }
}

extension Trip.Destination: Codable {
    private enum CodingKeys: String, CodingKey {
        case geometry, radius, address
        case arrivedAt = "arrived_at"
        case scheduledAt = "scheduled_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            radius: try container.decodeIfPresent(Double.self, forKey: .radius),
            address: try container.decodeIfPresent(String.self, forKey: .address),
            arrivedAt: try container.decodeIfPresent(Date.self, forKey: .arrivedAt),
            scheduledAt: try container.decodeIfPresent(Date.self, forKey: .scheduledAt)
        )
        self.geometry = try container.decodeIfPresent(GeoJSONGeometry.self, forKey: .geometry)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(self.geometry, forKey: .geometry)
        try container.encodeIfPresent(self.radius, forKey: .radius)
        try container.encodeIfPresent(self.address, forKey: .address)
        try container.encodeIfPresent(self.arrivedAt, forKey: .arrivedAt)
        try container.encodeIfPresent(self.scheduledAt, forKey: .scheduledAt)
    }
}

extension Trip.Estimate: Codable {
    private enum CodingKeys: String, CodingKey {
        case arriveAt = "arrive_at"
        case route
        case reroutesExceeded = "reroutes_exceeded"
    }

    private enum RouteKeys: String, CodingKey {
        case distance, duration, polyline
        case remainingDuration = "remaining_duration"
        case startAddress = "start_address"
        case endAddress = "end_address"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            arriveAt: try container.decodeIfPresent(Date.self, forKey: .arriveAt),
            reroutesExceeded: try container.decodeIfPresent(Bool.self, forKey: .reroutesExceeded)
        )
        guard container.contains(.route), try !container.decodeNil(forKey: .route) else { return }
        let route = try container.nestedContainer(keyedBy: RouteKeys.self, forKey: .route)
        self.distance = try route.decodeIfPresent(Double.self, forKey: .distance)
        self.duration = try route.decodeIfPresent(Double.self, forKey: .duration)
        self.remainingDuration = try route.decodeIfPresent(Double.self, forKey: .remainingDuration)
        self.startAddress = try route.decodeIfPresent(String.self, forKey: .startAddress)
        self.endAddress = try route.decodeIfPresent(String.self, forKey: .endAddress)
        if case .lineString(let points) = try route.decodeIfPresent(GeoJSONGeometry.self, forKey: .polyline) {
            self.polyline = points
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(self.arriveAt, forKey: .arriveAt)
        try container.encodeIfPresent(self.reroutesExceeded, forKey: .reroutesExceeded)
        var route = container.nestedContainer(keyedBy: RouteKeys.self, forKey: .route)
        try route.encodeIfPresent(self.distance, forKey: .distance)
        try route.encodeIfPresent(self.duration, forKey: .duration)
        try route.encodeIfPresent(self.remainingDuration, forKey: .remainingDuration)
        try route.encodeIfPresent(self.startAddress, forKey: .startAddress)
        try route.encodeIfPresent(self.endAddress, forKey: .endAddress)
        try route.encode(GeoJSONGeometry.lineString(self.polyline), forKey: .polyline)
    }
}

extension KeyedDecodingContainer {
    /// Metadata is an object or `null`; anything else (a string, a number) is kept under no key rather than
    /// failing the whole payload.
    func decodeMetadata(forKey key: Key) throws -> [String: JSONValue]? {
        switch try self.decodeIfPresent(JSONValue.self, forKey: key) {
        case .object(let object): return object
        case .none, .null: return nil
        case .some(let other): return ["value": other]
        }
    }
}
