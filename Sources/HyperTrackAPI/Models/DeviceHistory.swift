import Foundation

/// A device's day (`GET /devices/{device_id}/history/{YYYY-MM-DD}`): its path, markers and totals.
public struct DeviceHistory: Sendable, Hashable, Decodable {
    /// The device.
    public var deviceID: String?
    /// Start of the period.
    public var startedAt: Date?
    /// End of the period.
    public var completedAt: Date?
    /// The recorded path, oldest first.
    public var locations: [RecordedLocation]
    /// Activity, outage, geofence and trip markers.
    public var markers: [Marker]
    /// Metres travelled.
    public var distance: Double?
    /// Seconds covered.
    public var duration: Double?
    /// Share of the period with tracking data, in percent.
    public var trackingRate: Double?
    /// Why tracking was off, as sent.
    public var inactiveReasons: [JSONValue]
    /// Seconds inactive.
    public var inactiveDuration: Double?
    /// Seconds active.
    public var activeDuration: Double?
    /// Seconds stopped.
    public var stopDuration: Double?
    /// Seconds walking.
    public var walkDuration: Double?
    /// Seconds driving.
    public var driveDuration: Double?
    /// Number of trips.
    public var trips: Double?
    /// Number of geotags.
    public var geotags: Double?
    /// Number of geofences visited.
    public var geofencesVisited: Double?

    private enum CodingKeys: String, CodingKey {
        case locations, markers, distance, duration, trips, geotags
        case deviceID = "device_id"
        case startedAt = "started_at"
        case completedAt = "completed_at"
        case trackingRate = "tracking_rate"
        case inactiveReasons = "inactive_reasons"
        case inactiveDuration = "inactive_duration"
        case activeDuration = "active_duration"
        case stopDuration = "stop_duration"
        case walkDuration = "walk_duration"
        case driveDuration = "drive_duration"
        case geofencesVisited = "geofences_visited"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.deviceID = try c.decodeIfPresent(String.self, forKey: .deviceID)
        self.startedAt = try c.decodeIfPresent(Date.self, forKey: .startedAt)
        self.completedAt = try c.decodeIfPresent(Date.self, forKey: .completedAt)
        self.locations = try c.decodeIfPresent(RecordedLineString.self, forKey: .locations)?.coordinates ?? []
        self.markers = try c.decodeIfPresent([Marker].self, forKey: .markers) ?? []
        self.distance = try c.decodeIfPresent(Double.self, forKey: .distance)
        self.duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        self.trackingRate = try c.decodeIfPresent(Double.self, forKey: .trackingRate)
        self.inactiveReasons = try c.decodeIfPresent([JSONValue].self, forKey: .inactiveReasons) ?? []
        self.inactiveDuration = try c.decodeIfPresent(Double.self, forKey: .inactiveDuration)
        self.activeDuration = try c.decodeIfPresent(Double.self, forKey: .activeDuration)
        self.stopDuration = try c.decodeIfPresent(Double.self, forKey: .stopDuration)
        self.walkDuration = try c.decodeIfPresent(Double.self, forKey: .walkDuration)
        self.driveDuration = try c.decodeIfPresent(Double.self, forKey: .driveDuration)
        self.trips = try c.decodeIfPresent(Double.self, forKey: .trips)
        self.geotags = try c.decodeIfPresent(Double.self, forKey: .geotags)
        self.geofencesVisited = try c.decodeIfPresent(Double.self, forKey: .geofencesVisited)
    }
}

/// The account-wide export of one day (`GET /devices/history/{YYYY-MM-DD}`): usually a link to a temporary file.
public struct AccountHistoryExport: Sendable, Hashable, Decodable {
    /// The link to the export, when the answer has one.
    public var url: String?
    /// The whole answer as sent.
    public var raw: JSONValue

    private enum CodingKeys: String, CodingKey {
        case url
    }

    public init(from decoder: any Decoder) throws {
        self.raw = try JSONValue(from: decoder)
        self.url = self.raw.objectValue?["url"]?.stringValue
    }
}
