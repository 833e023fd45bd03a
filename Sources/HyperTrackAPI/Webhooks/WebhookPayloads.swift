import Foundation

/// `data` of a `location` event.
public struct LocationUpdate: Sendable, Hashable, Decodable {
    /// The position.
    public var coordinate: Coordinate?
    /// Horizontal accuracy in metres.
    public var accuracy: Double?
    /// Speed in metres per second.
    public var speed: Double?
    /// Bearing in degrees.
    public var bearing: Double?

    private enum CodingKeys: String, CodingKey {
        case geometry, accuracy, speed, bearing
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.coordinate = try container.decodeIfPresent(GeoJSONGeometry.self, forKey: .geometry)?.point
        self.accuracy = try? container.decodeIfPresent(Double.self, forKey: .accuracy)
        self.speed = try? container.decodeIfPresent(Double.self, forKey: .speed)
        self.bearing = try? container.decodeIfPresent(Double.self, forKey: .bearing)
    }
}

/// `data` of a `device_status` event.
public struct DeviceStatusUpdate: Sendable, Hashable, Decodable {
    /// `active`, `inactive`, `disconnected`, or a value we do not know.
    public var value: DeviceStatusValue
    /// What an active device is doing.
    public var activity: Activity?
    /// Why an inactive device is inactive (an open set, e.g. `location_permissions_denied`).
    public var reason: String?
}

/// `data` of a `battery` event.
public struct BatteryUpdate: Sendable, Hashable, Decodable {
    /// `low`, `normal`, `charging`, or a value we do not know.
    public var value: BatteryStatus
    /// The charge in percent, when sent.
    public var batteryPercent: Double?

    private enum CodingKeys: String, CodingKey {
        case value
        case batteryPercent = "battery_percent"
    }
}

/// `data` of a `trip` event.
public struct TripEvent: Sendable, Hashable, Decodable {
    /// What happened.
    public var value: TripEventValue
    /// The trip.
    public var tripID: String
    /// The trip's metadata.
    public var tripMetadata: [String: JSONValue]?
    /// The geofence's metadata, on geofence events.
    public var geofenceMetadata: [String: JSONValue]?
    /// The geofence, on geofence events, when sent.
    public var geofenceID: String?
    /// The summary, on `completed` (`nil` when absent or unreadable; ``WebhookEvent/raw`` keeps it as sent).
    public var summary: TripSummary?

    private enum CodingKeys: String, CodingKey {
        case value, summary
        case tripID = "trip_id"
        case tripMetadata = "trip_metadata"
        case geofenceMetadata = "geofence_metadata"
        case geofenceID = "geofence_id"
    }

    /// Creates a trip event.
    public init(
        value: TripEventValue,
        tripID: String,
        tripMetadata: [String: JSONValue]? = nil,
        geofenceMetadata: [String: JSONValue]? = nil,
        geofenceID: String? = nil,
        summary: TripSummary? = nil
    ) {
        self.value = value
        self.tripID = tripID
        self.tripMetadata = tripMetadata
        self.geofenceMetadata = geofenceMetadata
        self.geofenceID = geofenceID
        self.summary = summary
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            value: try container.decode(TripEventValue.self, forKey: .value),
            tripID: try container.decode(String.self, forKey: .tripID),
            tripMetadata: try container.decodeMetadata(forKey: .tripMetadata),
            geofenceMetadata: try container.decodeMetadata(forKey: .geofenceMetadata),
            geofenceID: try? container.decodeIfPresent(String.self, forKey: .geofenceID),
            summary: (try? container.decodeIfPresent(TripSummary.self, forKey: .summary)) ?? nil
        )
    }
}

/// The `value` of a `trip` event.
public struct TripEventValue: OpenEnum {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The trip was created.
    public static let created: Self = "created"
    /// The device reached the destination.
    public static let destinationArrival: Self = "destination_arrival"
    /// The device entered one of the trip's geofences.
    public static let geofenceEnter: Self = "geofence_enter"
    /// The device left one of the trip's geofences.
    public static let geofenceExit: Self = "geofence_exit"
    /// The trip completed; the event carries the summary.
    public static let completed: Self = "completed"
}

/// `data` of a `nearby_devices_request` event.
public struct NearbyRequestCompleted: Sendable, Hashable, Decodable {
    /// `completed`, or a value we do not know.
    public var value: NearbyStatus
    /// The Nearby request.
    public var requestID: String
    /// The point of interest.
    public var location: Coordinate?
    /// The metadata filter.
    public var metadata: [String: JSONValue]?
    /// The radius in metres.
    public var radius: Double?

    private enum CodingKeys: String, CodingKey {
        case value, location, metadata, radius
        case requestID = "request_id"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.value = try container.decode(NearbyStatus.self, forKey: .value)
        self.requestID = try container.decode(String.self, forKey: .requestID)
        self.location = try container.decodeIfPresent(GeoJSONGeometry.self, forKey: .location)?.point
        self.metadata = try container.decodeMetadata(forKey: .metadata)
        self.radius = try container.decodeIfPresent(Double.self, forKey: .radius)
    }
}
