import Foundation

/// A trip as the API returns it (`POST /trips`, `GET /trips/{id}`, list pages).
public struct Trip: Sendable, Hashable {
    /// The trip's id (lowercase UUID, treated as opaque).
    public var tripID: String
    /// The device making the trip.
    public var deviceID: String
    /// `active`, `processing_completion`, `completed`, or a value we do not know.
    public var status: TripStatus
    /// When the trip started.
    public var startedAt: Date?
    /// When the trip completed; `nil` while active.
    public var completedAt: Date?
    /// Share and embed URLs.
    public var views: Views?
    /// The metadata the trip was created with.
    public var metadata: [String: JSONValue]?
    /// The destination, with its reverse-geocoded address and arrival time.
    public var destination: Destination?
    /// ETA and route, present while a destination is set.
    public var estimate: Estimate?
    /// Filled once the trip is completed.
    public var summary: TripSummary?
    /// The device's OS and SDK versions.
    public var deviceInfo: DeviceInfo?
    /// The trip's geofences.
    public var geofences: [Geofence]?
    /// Whether the ETA is meaningful (`eta_relevance_data`).
    public var etaRelevance: ETARelevance?

    /// Share and embed URLs of a trip.
    public struct Views: Sendable, Hashable {
        /// The public tracking link (`https://trck.at/…`).
        public var shareURL: String?
        /// The embeddable view's URL.
        public var embedURL: String?

        /// Creates views.
        public init(shareURL: String? = nil, embedURL: String? = nil) {
            self.shareURL = shareURL
            self.embedURL = embedURL
        }
    }

    /// A trip's destination as returned.
    public struct Destination: Sendable, Hashable {
        /// The destination's geometry: a point, or a polygon.
        public var geometry: GeoJSONGeometry?
        /// The destination point, when the geometry is a point.
        public var point: Coordinate? {
            get { self.geometry?.point }
            set { self.geometry = newValue.map(GeoJSONGeometry.point) }
        }
        /// The arrival radius in metres.
        public var radius: Double?
        /// The server's address for the point.
        public var address: String?
        /// When the device arrived, once it has.
        public var arrivedAt: Date?
        /// When the device was expected there, if the trip was created with a schedule.
        public var scheduledAt: Date?

        /// Creates a destination.
        public init(
            point: Coordinate? = nil,
            radius: Double? = nil,
            address: String? = nil,
            arrivedAt: Date? = nil,
            scheduledAt: Date? = nil
        ) {
            self.geometry = point.map(GeoJSONGeometry.point)
            self.radius = radius
            self.address = address
            self.arrivedAt = arrivedAt
            self.scheduledAt = scheduledAt
        }
    }

    /// The ETA and route to the destination.
    public struct Estimate: Sendable, Hashable {
        /// Expected arrival time.
        public var arriveAt: Date?
        /// Route distance in metres.
        public var distance: Double?
        /// Route duration in seconds.
        public var duration: Double?
        /// Remaining duration in seconds.
        public var remainingDuration: Double?
        /// The route as positions.
        public var polyline: [Coordinate]
        /// The route's start address.
        public var startAddress: String?
        /// The route's end address.
        public var endAddress: String?
        /// Whether the route was recomputed too often to keep estimating.
        public var reroutesExceeded: Bool?

        /// Creates an estimate.
        public init(
            arriveAt: Date? = nil,
            distance: Double? = nil,
            duration: Double? = nil,
            remainingDuration: Double? = nil,
            polyline: [Coordinate] = [],
            startAddress: String? = nil,
            endAddress: String? = nil,
            reroutesExceeded: Bool? = nil
        ) {
            self.arriveAt = arriveAt
            self.distance = distance
            self.duration = duration
            self.remainingDuration = remainingDuration
            self.polyline = polyline
            self.startAddress = startAddress
            self.endAddress = endAddress
            self.reroutesExceeded = reroutesExceeded
        }
    }

    /// Creates a trip value (tests and fakes build these).
    public init(
        tripID: String,
        deviceID: String,
        status: TripStatus,
        startedAt: Date? = nil,
        completedAt: Date? = nil,
        views: Views? = nil,
        metadata: [String: JSONValue]? = nil,
        destination: Destination? = nil,
        estimate: Estimate? = nil,
        summary: TripSummary? = nil,
        deviceInfo: DeviceInfo? = nil,
        geofences: [Geofence]? = nil,
        etaRelevance: ETARelevance? = nil
    ) {
        self.tripID = tripID
        self.deviceID = deviceID
        self.status = status
        self.startedAt = startedAt
        self.completedAt = completedAt
        self.views = views
        self.metadata = metadata
        self.destination = destination
        self.estimate = estimate
        self.summary = summary
        self.deviceInfo = deviceInfo
        self.geofences = geofences
        self.etaRelevance = etaRelevance
    }
}

/// A trip's status: an open enum, so a value we do not know is kept, not fatal.
public struct TripStatus: OpenEnum {
    /// The wire string.
    public var rawValue: String
    /// Creates a status from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Decodes the wire string.
    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    /// Encodes the wire string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }
    /// The wire string.
    public var description: String { self.rawValue }

    /// The trip is being tracked.
    public static let active = TripStatus(rawValue: "active")
    /// `POST …/complete` was accepted; the summary is being computed.
    public static let processingCompletion = TripStatus(rawValue: "processing_completion")
    /// The trip is over and has its summary.
    public static let completed = TripStatus(rawValue: "completed")
}
