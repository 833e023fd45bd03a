import Foundation

struct GeofenceRecord: Codable, Equatable, Sendable {
    var id: String
    var geometry: JSON
    var center: Coordinate
    var radius: Double
    var metadata: JSON
    var deviceID: String?
    var createdAt: Date
    var archived = false
    /// For trip geofences: when the trip's device first came inside.
    var arrivedAt: Date?
}
