import Foundation

/// A category of driving behaviour a trip is rated on.
public enum DrivingCategory: String, Sendable, Hashable, Codable, CodingKeyRepresentable, CaseIterable {
    /// Longitudinal acceleration above the threshold.
    case rapidAcceleration = "rapid_acceleration"
    /// Longitudinal deceleration above the threshold.
    case hardBraking = "hard_braking"
    /// Speed above the posted limit (plus a margin) for long enough.
    case speeding
    /// Lateral acceleration (from speed and bearing change) above the threshold.
    case hardTurn = "hard_turn"
    /// Handling the phone while driving: locations cannot show it, so it is always `not_available` here.
    case phoneUse = "phone_use"
}

/// One detected driving event: its kind, where and when it started and ended, and for speeding the posted limit
/// and the driver's maximum and average speed.
public struct DrivingEvent: Sendable, Hashable, Codable {
    /// What happened.
    public var kind: DrivingCategory
    /// The point where it started.
    public var start: TripPoint
    /// The point where it ended.
    public var end: TripPoint
    /// The strongest acceleration of the event in m/s² (negative when braking; lateral for turns); `nil` for speeding.
    public var peakAcceleration: Double?
    /// Speeding: the posted limit in km/h.
    public var postedLimit: Double?
    /// Speeding: the highest speed in km/h.
    public var maximumSpeed: Double?
    /// Speeding: the mean of the speeds sampled during the event, in km/h.
    public var averageSpeed: Double?

    /// Creates an event.
    public init(
        kind: DrivingCategory,
        start: TripPoint,
        end: TripPoint,
        peakAcceleration: Double? = nil,
        postedLimit: Double? = nil,
        maximumSpeed: Double? = nil,
        averageSpeed: Double? = nil
    ) {
        self.kind = kind
        self.start = start
        self.end = end
        self.peakAcceleration = peakAcceleration
        self.postedLimit = postedLimit
        self.maximumSpeed = maximumSpeed
        self.averageSpeed = averageSpeed
    }

    private enum CodingKeys: String, CodingKey {
        case kind = "type"
        case start, end
        case peakAcceleration = "peak_acceleration"
        case postedLimit = "posted_limit_kmh"
        case maximumSpeed = "max_speed_kmh"
        case averageSpeed = "average_speed_kmh"
    }
}
