import Foundation

/// What a completed trip recorded for one leg: distance, duration and route.
public struct LegSummary: Sendable, Hashable, Codable {
    /// Metres travelled.
    public var distance: Double
    /// Seconds taken.
    public var duration: Double
    /// The recorded route as `[longitude, latitude]` pairs, oldest first.
    public var route: [[Double]]

    /// Creates a leg summary.
    public init(distance: Double, duration: Double, route: [[Double]] = []) {
        self.distance = distance
        self.duration = duration
        self.route = route
    }
}
