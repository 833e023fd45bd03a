import Foundation

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
    /// `true` asks for an asynchronous search that also tries to locate inactive devices.
    public var deep: Bool?

    /// Creates a Nearby request.
    public init(
        location: Coordinate,
        radius: Double,
        metadata: [String: JSONValue]? = nil,
        devices: [String]? = nil,
        lastUpdatedWithin: Double? = nil,
        deep: Bool? = nil
    ) {
        self.location = location
        self.radius = radius
        self.metadata = metadata
        self.devices = devices
        self.lastUpdatedWithin = lastUpdatedWithin
        self.deep = deep
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
    /// When its position was recorded.
    public var recordedAt: Date?
    /// The Nearby request that found it.
    public var requestID: String?
    /// Its distance to the point of interest in metres, when the service says.
    public var distance: Double?
    /// Its name, OS and SDK.
    public var deviceInfo: DeviceInfo?

    /// Creates a result.
    public init(
        deviceID: String,
        location: Coordinate?,
        metadata: [String: JSONValue]? = nil,
        recordedAt: Date? = nil,
        requestID: String? = nil,
        distance: Double? = nil,
        deviceInfo: DeviceInfo? = nil
    ) {
        self.deviceID = deviceID
        self.location = location
        self.metadata = metadata
        self.recordedAt = recordedAt
        self.requestID = requestID
        self.distance = distance
        self.deviceInfo = deviceInfo
    }
}
