import Foundation
import Hummingbird

/// A place where a trip started or ended.
public struct TripPlaceView: Codable, Sendable, Hashable {
    /// Degrees north.
    public var lat: Double
    /// Degrees east.
    public var lng: Double
    /// The order's address there, when the rider's app sent one.
    public var address: String?
}

/// A trip as the driver's trip list shows it.
public struct TripView: Codable, Sendable, Hashable, ResponseEncodable {
    /// The trip's id.
    public var id: UUID
    /// When the drive began (the leg's trip was created).
    public var startedAt: Date
    /// When the drive ended (the leg's completion was requested).
    public var endedAt: Date
    /// Metres driven.
    public var distance: Double
    /// Seconds from start to end.
    public var duration: Double
    /// Where it started, when known.
    public var start: TripPlaceView?
    /// Where it ended, when known.
    public var end: TripPlaceView?
    /// The order the drive served.
    public var orderID: UUID?
    /// `pickup` (to the rider) or `dropoff` (the ride).
    public var driveType: String
    /// 0–100; `nil` when the trip had no path to rate.
    public var score: Int?
    /// Stars per category: 1–5 or `not_available`.
    public var ratings: [DrivingCategory: StarRating]
    /// The driver's feedback (`not_driving`, `not_a_trip`, `passenger`); such a trip is out of the program.
    public var feedback: String?

    enum CodingKeys: String, CodingKey {
        case id, distance, duration, start, end, score, ratings, feedback
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case orderID = "order_id"
        case driveType = "drive_type"
    }
}

/// A page of the driver's trips, newest first.
public struct TripPage: Codable, Sendable, ResponseEncodable {
    /// At most 30 trips.
    public var trips: [TripView]
    /// Pass as `cursor` for the next page; `nil` on the last page.
    public var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case trips
        case nextCursor = "next_cursor"
    }

    /// `next_cursor` is always present, `null` on the last page (the synthesised encoding would leave it out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.trips, forKey: .trips)
        try container.encode(self.nextCursor, forKey: .nextCursor)
    }
}

/// One trip in detail: the list's fields, the simplified path, the trip info and the events.
public struct TripDetailView: Codable, Sendable, ResponseEncodable {
    /// What the list shows.
    public var trip: TripView
    /// The path simplified with Douglas-Peucker at 5 m: points with time, speed and bearing.
    public var path: [TripPoint]
    /// Drive type and vehicle type.
    public var info: Info
    /// The detected events, in the order they started.
    public var events: [DrivingEvent]

    /// Trip info.
    public struct Info: Codable, Sendable, Hashable {
        /// `pickup` or `dropoff`.
        public var driveType: String
        /// `car`.
        public var vehicleType: String
        /// How many locations the drive had before simplification.
        public var pointCount: Int

        enum CodingKeys: String, CodingKey {
            case driveType = "drive_type"
            case vehicleType = "vehicle_type"
            case pointCount = "point_count"
        }
    }
}

/// `POST /v1/drivers/me/trips/{id}/feedback`'s body.
struct TripFeedbackBody: Decodable {
    /// Why the trip should not count.
    var kind: Kind

    enum Kind: String, Decodable, CaseIterable {
        case notDriving = "not_driving"
        case notATrip = "not_a_trip"
        case passenger
    }
}

/// The driver's standing in the insurance program: the rule and their progress against it.
public struct ProgramView: Codable, Sendable, ResponseEncodable {
    /// The rule as configured.
    public var rule: Rule
    /// Scored trips in the window (trips with feedback do not count).
    public var scoredTrips: Int
    /// Their average score; `nil` without any.
    public var averageScore: Double?
    /// How many more scored trips are needed (0 when enough).
    public var tripsNeeded: Int
    /// Whether the driver qualifies now.
    public var qualified: Bool

    /// The qualification rule.
    public struct Rule: Codable, Sendable, Hashable {
        /// Scored trips needed.
        public var minimumTrips: Int
        /// Average score needed.
        public var minimumAverageScore: Int
        /// The window in days.
        public var windowDays: Int

        enum CodingKeys: String, CodingKey {
            case minimumTrips = "minimum_trips"
            case minimumAverageScore = "minimum_average_score"
            case windowDays = "window_days"
        }
    }

    enum CodingKeys: String, CodingKey {
        case rule, qualified
        case scoredTrips = "scored_trips"
        case averageScore = "average_score"
        case tripsNeeded = "trips_needed"
    }
}
