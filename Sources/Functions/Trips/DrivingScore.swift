import Foundation

/// A category's star rating: 1 to 5 stars, or `not_available` when the data cannot show the behaviour.
public enum StarRating: Sendable, Hashable, Codable {
    /// 1 (worst) to 5 (no event).
    case stars(Int)
    /// The trip's data cannot rate this category (phone use; a trip without a path).
    case notAvailable

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let stars = try? container.decode(Int.self) {
            self = .stars(stars)
        } else if try container.decode(String.self) == "not_available" {
            self = .notAvailable
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "stars or not_available")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .stars(let stars): try container.encode(stars)
        case .notAvailable: try container.encode("not_available")
        }
    }
}

/// A trip's driving score (0–100) and its stars per category, from its events per distance.
///
/// The formula, with `km = max(distance in km, 1)` (so a 300 m pickup with one event is not rated as if it had
/// three per kilometre) and, per category, `rate = events / km × 10` (events per 10 km):
/// - stars: 5 without events, else `max(1, 5 − ⌈rate⌉)`: one event per 10 km or fewer is 4 stars, up to two 3,
///   up to three 2, more 1;
/// - score: `100 − Σ weight × rate`, rounded and clamped to 0…100, with weight 5 for rapid acceleration, hard
///   braking and hard turns and 10 for speeding (speed is the behaviour most tied to crash severity, so it counts
///   double);
/// - phone use is always `not_available` (locations cannot show it) and does not enter the score; a trip without
///   at least two points has no score and every category `not_available`.
///
/// Example: 5 km with one hard brake and one speeding stretch: both rates are 2, so hard braking and speeding get
/// 3 stars, the others 5, and the score is 100 − 5·2 − 10·2 = 70.
public struct DrivingScore: Sendable, Hashable, Codable {
    /// 0–100, `nil` when the trip has no path to rate.
    public var score: Int?
    /// Stars per category (every ``DrivingCategory``).
    public var ratings: [DrivingCategory: StarRating]

    /// The weights of the score, per event per 10 km.
    static let weights: [DrivingCategory: Double] = [
        .rapidAcceleration: 5, .hardBraking: 5, .hardTurn: 5, .speeding: 10,
    ]

    /// Rates a trip.
    /// - Parameters:
    ///   - events: The trip's events.
    ///   - distance: The trip's length in metres.
    ///   - rated: Whether the trip had a path to rate at all (at least two points).
    public init(events: [DrivingEvent], distance: Double, rated: Bool = true) {
        var ratings: [DrivingCategory: StarRating] = [:]
        guard rated else {
            for category in DrivingCategory.allCases { ratings[category] = .notAvailable }
            self.score = nil
            self.ratings = ratings
            return
        }
        let kilometres = max(distance / 1000, 1)
        var penalty = 0.0
        for category in DrivingCategory.allCases {
            guard let weight = Self.weights[category] else {
                ratings[category] = .notAvailable
                continue
            }
            let count = events.filter { $0.kind == category }.count
            let rate = Double(count) / kilometres * 10
            penalty += weight * rate
            ratings[category] = count == 0 ? .stars(5) : .stars(max(1, 5 - Int(rate.rounded(.up))))
        }
        self.score = max(0, min(100, Int((100 - penalty).rounded())))
        self.ratings = ratings
    }
}
