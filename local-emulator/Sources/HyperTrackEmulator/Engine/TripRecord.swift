import Foundation

enum TripStatus: String, Codable, Sendable {
    case active
    case processingCompletion = "processing_completion"
    case completed
}

struct DestinationRecord: Codable, Equatable, Sendable {
    var geometry: JSON
    var center: Coordinate
    var radius: Double
    var scheduledAt: Date?
    var address: String
    var arrivedAt: Date?
}

struct EstimateRecord: Codable, Equatable, Sendable {
    var route: Route
    var startAddress: String
    var endAddress: String
    var arriveAt: Date
    var duration: Double
}

struct TripRecord: Codable, Equatable, Sendable {
    var id: String
    var deviceID: String
    var startedAt: Date
    var completedAt: Date?
    var status: TripStatus
    var completionRequestedAt: Date?
    var metadata: JSON
    var destination: DestinationRecord?
    var estimate: EstimateRecord?
    var geofences: [GeofenceRecord]
    var trackingID: String
    var summary: JSON?
}
