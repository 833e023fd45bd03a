import Foundation

/// A device's `device_info`: hardware, OS and SDK, and the device's name.
public struct DeviceInfo: Sendable, Hashable, Codable {
    /// The device's name (set with `PATCH /devices/{id}`).
    public var name: String?
    /// The OS name, e.g. `iOS`.
    public var osName: String?
    /// The OS version.
    public var osVersion: String?
    /// The HyperTrack SDK version.
    public var sdkVersion: String?
    /// The manufacturer.
    public var deviceBrand: String?
    /// The model.
    public var deviceModel: String?
    /// The mobile network operator.
    public var networkOperator: String?
    /// The device's time zone identifier.
    public var timezone: String?

    private enum CodingKeys: String, CodingKey {
        case name, timezone
        case osName = "os_name"
        case osVersion = "os_version"
        case sdkVersion = "sdk_version"
        case deviceBrand = "device_brand"
        case deviceModel = "device_model"
        case networkOperator = "network_operator"
    }

    /// Creates device info.
    public init(
        name: String? = nil,
        osName: String? = nil,
        osVersion: String? = nil,
        sdkVersion: String? = nil,
        deviceBrand: String? = nil,
        deviceModel: String? = nil,
        networkOperator: String? = nil,
        timezone: String? = nil
    ) {
        self.name = name
        self.osName = osName
        self.osVersion = osVersion
        self.sdkVersion = sdkVersion
        self.deviceBrand = deviceBrand
        self.deviceModel = deviceModel
        self.networkOperator = networkOperator
        self.timezone = timezone
    }
}

/// A trip's `eta_relevance_data`: whether its ETA means anything.
public struct ETARelevance: Sendable, Hashable, Codable {
    /// `true` while the ETA is relevant.
    public var status: Bool?
    /// Why it is not, e.g. `Destination too far`.
    public var reason: String?
    /// When it stopped being relevant.
    public var timeAtIrrelevance: Date?

    private enum CodingKeys: String, CodingKey {
        case status, reason
        case timeAtIrrelevance = "time_at_irrelevance"
    }

    /// Creates ETA relevance data.
    public init(status: Bool? = nil, reason: String? = nil, timeAtIrrelevance: Date? = nil) {
        self.status = status
        self.reason = reason
        self.timeAtIrrelevance = timeAtIrrelevance
    }
}
