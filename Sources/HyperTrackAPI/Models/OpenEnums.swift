/// A device's status value (`device_status.value`, `device_status` webhooks and markers).
public struct DeviceStatusValue: OpenEnum {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Tracking.
    public static let active: Self = "active"
    /// Not tracking; see the reason.
    public static let inactive: Self = "inactive"
    /// Not heard from.
    public static let disconnected: Self = "disconnected"
}

/// What an active device is doing.
public struct Activity: OpenEnum {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Stationary.
    public static let stop: Self = "stop"
    /// Walking.
    public static let walk: Self = "walk"
    /// Driving.
    public static let drive: Self = "drive"
}

/// A battery state (`battery` on devices and in webhooks).
public struct BatteryStatus: OpenEnum {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Normal.
    public static let normal: Self = "normal"
    /// Low.
    public static let low: Self = "low"
    /// Charging.
    public static let charging: Self = "charging"
}

/// The kind of a summary marker.
public struct MarkerType: OpenEnum {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An activity or outage segment.
    public static let deviceStatus: Self = "device_status"
    /// A geofence visit.
    public static let geofence: Self = "geofence"
    /// A marker set by the app.
    public static let tripMarker: Self = "trip_marker"
}

/// The state of a Nearby request.
public struct NearbyStatus: OpenEnum {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Still searching; more devices may appear.
    public static let pending: Self = "pending"
    /// Done.
    public static let completed: Self = "completed"
}
