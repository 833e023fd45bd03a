import Foundation

struct NearbyRequestRecord: Codable, Equatable, Sendable {
    var id: String
    var location: Coordinate
    var radius: Double
    var metadata: JSON?
    var devices: [String]?
    var lastUpdatedWithin: Double
    var createdAt: Date
    var completedAt: Date?
    /// Device ids, nearest first, as found when the request completed (or when it was made, while pending).
    var results: [String]
}
