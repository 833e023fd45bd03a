import Foundation

/// A marker in a trip summary or a device's history: an activity segment, a geofence visit or a trip marker.
///
/// `data` keeps the marker's payload as sent; the typed views are filled for the kinds this client knows.
public struct Marker: Sendable, Hashable, Codable {
    /// The marker's id.
    public var markerID: String?
    /// The kind.
    public var type: MarkerType
    /// The payload as sent.
    public var data: JSONValue
    /// The typed payload of a `device_status` marker.
    public var deviceStatus: DeviceStatusMarker?
    /// The typed payload of a `geofence` marker.
    public var geofence: GeofenceMarker?
    /// The typed payload of a `trip_marker` marker.
    public var tripMarker: TripMarker?

    private enum CodingKeys: String, CodingKey {
        case type, data
        case markerID = "marker_id"
    }

    /// Creates a marker from its raw payload.
    public init(markerID: String? = nil, type: MarkerType, data: JSONValue) {
        self.markerID = markerID
        self.type = type
        self.data = data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.markerID = try container.decodeIfPresent(String.self, forKey: .markerID)
        self.type = try container.decodeIfPresent(MarkerType.self, forKey: .type) ?? ""
        self.data = try container.decodeIfPresent(JSONValue.self, forKey: .data) ?? .null
        switch self.type {
        case .deviceStatus: self.deviceStatus = try? container.decode(DeviceStatusMarker.self, forKey: .data)
        case .geofence: self.geofence = try? container.decode(GeofenceMarker.self, forKey: .data)
        case .tripMarker: self.tripMarker = try? container.decode(TripMarker.self, forKey: .data)
        default: break
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(self.markerID, forKey: .markerID)
        try container.encode(self.type, forKey: .type)
        try container.encode(self.data, forKey: .data)
    }
}

/// A place and time in a marker: `{"recorded_at", "location": {"geometry", "recorded_at"}}`.
public struct MarkerPoint: Sendable, Hashable, Decodable {
    /// When.
    public var recordedAt: Date?
    /// Where, when known.
    public var location: Coordinate?

    private enum CodingKeys: String, CodingKey {
        case location, geometry
        case recordedAt = "recorded_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.recordedAt = try container.decodeIfPresent(Date.self, forKey: .recordedAt)
        guard container.contains(.location), try !container.decodeNil(forKey: .location) else { return }
        let location = try container.nestedContainer(keyedBy: CodingKeys.self, forKey: .location)
        self.location = try location.decodeIfPresent(GeoJSONGeometry.self, forKey: .geometry)?.point
        if self.recordedAt == nil {
            self.recordedAt = try location.decodeIfPresent(Date.self, forKey: .recordedAt)
        }
    }
}

/// An activity or outage segment.
public struct DeviceStatusMarker: Sendable, Hashable, Decodable {
    /// `active`, `inactive`, `disconnected`, …
    public var value: DeviceStatusValue
    /// The activity while active.
    public var activity: Activity?
    /// Why the device was inactive.
    public var reason: String?
    /// Where and when the segment started.
    public var start: MarkerPoint?
    /// Where and when it ended.
    public var end: MarkerPoint?
    /// Its length in seconds.
    public var duration: Double?
}

/// A geofence visit.
public struct GeofenceMarker: Sendable, Hashable, Decodable {
    /// Entry.
    public var arrival: MarkerPoint?
    /// Exit, once left.
    public var exit: MarkerPoint?
    /// Time inside, in seconds.
    public var duration: Double?
    /// The geofence visited.
    public var geofence: Geofence?
    /// Distance (m) and duration (s) of the way there.
    public var routeTo: RouteTo?

    private enum CodingKeys: String, CodingKey {
        case arrival, exit, duration, geofence
        case routeTo = "route_to"
    }
}

/// The way to a geofence.
public struct RouteTo: Sendable, Hashable, Decodable {
    /// Metres.
    public var distance: Double?
    /// Seconds.
    public var duration: Double?
    /// Seconds spent stopped.
    public var idleTime: Double?
    /// When the way started.
    public var startedAt: Date?

    private enum CodingKeys: String, CodingKey {
        case distance, duration
        case idleTime = "idle_time"
        case startedAt = "started_at"
    }
}

/// A marker set by the app.
public struct TripMarker: Sendable, Hashable, Decodable {
    /// The marker's metadata.
    public var metadata: [String: JSONValue]?
    /// Where.
    public var location: Coordinate?
    /// When.
    public var recordedAt: Date?

    private enum CodingKeys: String, CodingKey {
        case metadata, location
        case recordedAt = "recorded_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.metadata = try container.decodeMetadata(forKey: .metadata)
        self.location = try container.decodeIfPresent(GeoJSONGeometry.self, forKey: .location)?.point
        self.recordedAt = try container.decodeIfPresent(Date.self, forKey: .recordedAt)
    }
}
