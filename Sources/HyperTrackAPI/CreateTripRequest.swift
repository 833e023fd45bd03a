import Foundation

/// The body of `POST /trips`.
public struct CreateTripRequest: Sendable, Hashable {
    /// The device that makes the trip.
    public var deviceID: String
    /// Where the trip goes, if anywhere.
    public var destination: Destination?
    /// Metadata echoed back on the trip and as `trip_metadata` in webhooks.
    public var metadata: [String: JSONValue]?
    /// Geofences to watch during the trip.
    public var geofences: [GeofenceDefinition]?

    /// A trip's destination: a point and a radius.
    public struct Destination: Sendable, Hashable {
        /// The destination point.
        public var point: Coordinate
        /// A polygon to use instead of `point` (HyperTrack accepts either geometry).
        public var polygon: [[Coordinate]]?
        /// Arrival radius in metres; HyperTrack's default (30 m) when `nil`.
        public var radius: Int?
        /// When the device is expected there; enables delay tracking.
        public var scheduledAt: Date?

        /// Creates a destination.
        public init(point: Coordinate, radius: Int? = nil, scheduledAt: Date? = nil) {
            self.point = point
            self.radius = radius
            self.scheduledAt = scheduledAt
        }
    }

    /// Creates a trip request.
    /// - Parameters:
    ///   - deviceID: The device.
    ///   - destination: The destination, if any.
    ///   - metadata: Metadata for the trip.
    ///   - geofences: Geofences to watch during the trip.
    public init(
        deviceID: String,
        destination: Destination? = nil,
        metadata: [String: JSONValue]? = nil,
        geofences: [GeofenceDefinition]? = nil
    ) {
        self.deviceID = deviceID
        self.destination = destination
        self.metadata = metadata
        self.geofences = geofences
    }
}
