import Foundation

/// A completed trip's summary (also carried by the `completed` trip webhook).
public struct TripSummary: Sendable, Hashable {
    /// Distance travelled in metres.
    public var distance: Double?
    /// Duration in seconds.
    public var duration: Double?
    /// When the trip started.
    public var startedAt: Date?
    /// When the trip completed.
    public var completedAt: Date?
    /// The recorded path, oldest first.
    public var locations: [RecordedLocation]
    /// Activity, outage, geofence and trip markers along the way.
    public var markers: [Marker]
    /// The device that made the trip.
    public var deviceID: String?

    /// Creates a summary.
    public init(
        distance: Double? = nil,
        duration: Double? = nil,
        startedAt: Date? = nil,
        completedAt: Date? = nil,
        locations: [RecordedLocation] = [],
        markers: [Marker] = [],
        deviceID: String? = nil
    ) {
        self.distance = distance
        self.duration = duration
        self.startedAt = startedAt
        self.completedAt = completedAt
        self.locations = locations
        self.markers = markers
        self.deviceID = deviceID
    }
}

/// One point of a recorded path: `[lng, lat, alt|null, "recorded_at"]` on the wire.
public struct RecordedLocation: Sendable, Hashable {
    /// The position.
    public var coordinate: Coordinate
    /// When the device recorded it.
    public var recordedAt: Date?

    /// Creates a recorded location.
    public init(coordinate: Coordinate, recordedAt: Date?) {
        self.coordinate = coordinate
        self.recordedAt = recordedAt
    }
}
