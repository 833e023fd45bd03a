import Foundation

/// A geofence: a trip's geofence (`GET /trips/{id}/geofence/{gid}`) or an account geofence (`/geofences/{gid}`).
public struct Geofence: Sendable, Hashable, Codable {
    /// The geofence's id.
    public var geofenceID: String
    /// The area: a point with a radius, or a polygon.
    public var geometry: GeoJSONGeometry?
    /// The radius in metres, for a point.
    public var radius: Double?
    /// The metadata it was created or patched with.
    public var metadata: [String: JSONValue]?
    /// The device it belongs to, for device geofences.
    public var deviceID: String?
    /// The account.
    public var accountID: String?
    /// When it was created.
    public var createdAt: Date?
    /// Whether it is deleted only once visited.
    public var singleUse: Bool?
    /// Whether it was archived (deleted).
    public var archived: Bool?
    /// The kind, e.g. `device`.
    public var geofenceType: String?
    /// Its visits, as the service returned them (`{data: [markers], pagination_token, links}`).
    public var markers: JSONValue?

    private enum CodingKeys: String, CodingKey {
        case geometry, radius, metadata, archived, markers
        case geofenceID = "geofence_id"
        case deviceID = "device_id"
        case accountID = "account_id"
        case createdAt = "created_at"
        case singleUse = "single_use"
        case geofenceType = "geofence_type"
    }

    /// Creates a geofence value.
    public init(
        geofenceID: String,
        geometry: GeoJSONGeometry? = nil,
        radius: Double? = nil,
        metadata: [String: JSONValue]? = nil,
        deviceID: String? = nil,
        accountID: String? = nil,
        createdAt: Date? = nil,
        singleUse: Bool? = nil,
        archived: Bool? = nil,
        geofenceType: String? = nil,
        markers: JSONValue? = nil
    ) {
        self.geofenceID = geofenceID
        self.geometry = geometry
        self.radius = radius
        self.metadata = metadata
        self.deviceID = deviceID
        self.accountID = accountID
        self.createdAt = createdAt
        self.singleUse = singleUse
        self.archived = archived
        self.geofenceType = geofenceType
        self.markers = markers
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            geofenceID: try container.decode(String.self, forKey: .geofenceID),
            geometry: try container.decodeIfPresent(GeoJSONGeometry.self, forKey: .geometry),
            radius: try container.decodeIfPresent(Double.self, forKey: .radius),
            metadata: try container.decodeMetadata(forKey: .metadata),
            deviceID: try container.decodeIfPresent(String.self, forKey: .deviceID),
            accountID: try container.decodeIfPresent(String.self, forKey: .accountID),
            createdAt: try container.decodeIfPresent(Date.self, forKey: .createdAt),
            singleUse: try container.decodeIfPresent(Bool.self, forKey: .singleUse),
            archived: try container.decodeIfPresent(Bool.self, forKey: .archived),
            geofenceType: try container.decodeIfPresent(String.self, forKey: .geofenceType),
            markers: try container.decodeIfPresent(JSONValue.self, forKey: .markers)
        )
    }
}

/// A geofence to create: on a trip (`POST /trips`, `PATCH /trips/{id}/geofence`) or on the account
/// (`POST /geofences`).
public struct GeofenceDefinition: Sendable, Hashable, Codable {
    /// The area: a point (with `radius`) or a closed polygon.
    public var geometry: GeoJSONGeometry
    /// Radius in metres for a point; HyperTrack's default (30 m) when `nil`.
    public var radius: Int?
    /// Metadata returned with the geofence and its webhooks.
    public var metadata: [String: JSONValue]?
    /// The device, for account geofences that belong to one device.
    public var deviceID: String?

    private enum CodingKeys: String, CodingKey {
        case geometry, radius, metadata
        case deviceID = "device_id"
    }

    /// Creates a geofence definition.
    public init(
        geometry: GeoJSONGeometry,
        radius: Int? = nil,
        metadata: [String: JSONValue]? = nil,
        deviceID: String? = nil
    ) {
        self.geometry = geometry
        self.radius = radius
        self.metadata = metadata
        self.deviceID = deviceID
    }
}
