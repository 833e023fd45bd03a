/// A Nearby API search (`POST /devices/nearby`).
public struct NearbyRequest: Sendable, Hashable {
    /// The point of interest.
    public var location: Coordinate
    /// The search radius in metres.
    public var radius: Double
    /// Only devices whose metadata matches these keys.
    public var metadata: [String: JSONValue]?
    /// Only these devices.
    public var devices: [String]?
    /// Freshness window in hours (HyperTrack's default is 1).
    public var lastUpdatedWithin: Double?

    /// Creates a Nearby request.
    public init(
        location: Coordinate,
        radius: Double,
        metadata: [String: JSONValue]? = nil,
        devices: [String]? = nil,
        lastUpdatedWithin: Double? = nil
    ) {
        self.location = location
        self.radius = radius
        self.metadata = metadata
        self.devices = devices
        self.lastUpdatedWithin = lastUpdatedWithin
    }
}

/// A device in Nearby results.
public struct NearbyDevice: Sendable, Hashable {
    /// The device's id.
    public var deviceID: String
    /// Its last known position.
    public var location: Coordinate?
    /// Its metadata.
    public var metadata: [String: JSONValue]?

    /// Creates a result.
    public init(deviceID: String, location: Coordinate?, metadata: [String: JSONValue]? = nil) {
        self.deviceID = deviceID
        self.location = location
        self.metadata = metadata
    }
}
