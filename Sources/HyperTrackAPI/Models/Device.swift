import Foundation

/// A device as `GET /devices/{device_id}` and the device lists return it.
public struct Device: Sendable, Hashable, Codable {
    /// The device's id (assigned by the SDK; opaque, case-sensitive).
    public var deviceID: String
    /// Its last known position; absent for devices that never sent one.
    public var location: DeviceLocation?
    /// Whether it is tracking, and why not.
    public var deviceStatus: DeviceStatus?
    /// Share and embed URLs of the device.
    public var views: Trip.Views?
    /// The battery state.
    public var battery: BatteryStatus?
    /// Name, OS, SDK and hardware.
    public var deviceInfo: DeviceInfo?
    /// When the SDK registered it.
    public var registeredAt: Date?
    /// Its metadata.
    public var metadata: [String: JSONValue]?

    private enum CodingKeys: String, CodingKey {
        case location, views, battery, metadata
        case deviceID = "device_id"
        case deviceStatus = "device_status"
        case deviceInfo = "device_info"
        case registeredAt = "registered_at"
    }

    /// Creates a device value.
    public init(
        deviceID: String,
        location: DeviceLocation? = nil,
        deviceStatus: DeviceStatus? = nil,
        views: Trip.Views? = nil,
        battery: BatteryStatus? = nil,
        deviceInfo: DeviceInfo? = nil,
        registeredAt: Date? = nil,
        metadata: [String: JSONValue]? = nil
    ) {
        self.deviceID = deviceID
        self.location = location
        self.deviceStatus = deviceStatus
        self.views = views
        self.battery = battery
        self.deviceInfo = deviceInfo
        self.registeredAt = registeredAt
        self.metadata = metadata
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            deviceID: try container.decode(String.self, forKey: .deviceID),
            location: try container.decodeIfPresent(DeviceLocation.self, forKey: .location),
            deviceStatus: try container.decodeIfPresent(DeviceStatus.self, forKey: .deviceStatus),
            views: try container.decodeIfPresent(Trip.Views.self, forKey: .views),
            battery: try container.decodeIfPresent(BatteryStatus.self, forKey: .battery),
            deviceInfo: try container.decodeIfPresent(DeviceInfo.self, forKey: .deviceInfo),
            registeredAt: try container.decodeIfPresent(Date.self, forKey: .registeredAt),
            metadata: try container.decodeMetadata(forKey: .metadata)
        )
    }
}

/// A device's last position: `{geometry, speed, accuracy, bearing, recorded_at}`.
public struct DeviceLocation: Sendable, Hashable, Codable {
    /// The position.
    public var coordinate: Coordinate?
    /// Metres per second.
    public var speed: Double?
    /// Metres.
    public var accuracy: Double?
    /// Degrees.
    public var bearing: Double?
    /// When the device recorded it.
    public var recordedAt: Date?

    private enum CodingKeys: String, CodingKey {
        case geometry, speed, accuracy, bearing
        case recordedAt = "recorded_at"
    }

    /// Creates a device location.
    public init(
        coordinate: Coordinate?,
        speed: Double? = nil,
        accuracy: Double? = nil,
        bearing: Double? = nil,
        recordedAt: Date? = nil
    ) {
        self.coordinate = coordinate
        self.speed = speed
        self.accuracy = accuracy
        self.bearing = bearing
        self.recordedAt = recordedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            coordinate: try container.decodeIfPresent(GeoJSONGeometry.self, forKey: .geometry)?.point,
            speed: try container.decodeIfPresent(Double.self, forKey: .speed),
            accuracy: try container.decodeIfPresent(Double.self, forKey: .accuracy),
            bearing: try container.decodeIfPresent(Double.self, forKey: .bearing),
            recordedAt: try container.decodeIfPresent(Date.self, forKey: .recordedAt)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(self.coordinate.map(GeoJSONGeometry.point), forKey: .geometry)
        try container.encodeIfPresent(self.speed, forKey: .speed)
        try container.encodeIfPresent(self.accuracy, forKey: .accuracy)
        try container.encodeIfPresent(self.bearing, forKey: .bearing)
        try container.encodeIfPresent(self.recordedAt, forKey: .recordedAt)
    }
}

/// `device_status`: `{value, data: {recorded_at, activity?, reason?}}`.
public struct DeviceStatus: Sendable, Hashable, Codable {
    /// `active`, `inactive`, `disconnected`, or a value we do not know.
    public var value: DeviceStatusValue
    /// Since when.
    public var recordedAt: Date?
    /// What an active device is doing.
    public var activity: Activity?
    /// Why an inactive device is inactive (an open set of strings).
    public var reason: String?

    private enum CodingKeys: String, CodingKey {
        case value, data
    }

    private enum DataKeys: String, CodingKey {
        case activity, reason
        case recordedAt = "recorded_at"
    }

    /// Creates a status.
    public init(value: DeviceStatusValue, recordedAt: Date? = nil, activity: Activity? = nil, reason: String? = nil) {
        self.value = value
        self.recordedAt = recordedAt
        self.activity = activity
        self.reason = reason
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(value: try container.decode(DeviceStatusValue.self, forKey: .value))
        guard container.contains(.data), try !container.decodeNil(forKey: .data) else { return }
        let data = try container.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
        self.recordedAt = try data.decodeIfPresent(Date.self, forKey: .recordedAt)
        self.activity = try data.decodeIfPresent(Activity.self, forKey: .activity)
        self.reason = try data.decodeIfPresent(String.self, forKey: .reason)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.value, forKey: .value)
        var data = container.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
        try data.encodeIfPresent(self.recordedAt, forKey: .recordedAt)
        try data.encodeIfPresent(self.activity, forKey: .activity)
        try data.encodeIfPresent(self.reason, forKey: .reason)
    }
}
