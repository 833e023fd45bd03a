import Foundation

/// One recorded position of a device.
struct LocationSample: Codable, Equatable, Sendable {
    var coordinate: Coordinate
    var recordedAt: Date
    var speed: Double
    var bearing: Double
}

/// A device driving along a route on behalf of a trip.
struct Motion: Codable, Equatable, Sendable {
    var tripID: String
    var route: Route
    var startedAt: Date
    var speed: Double

    func travelled(at time: Date) -> Double { max(0, time.timeIntervalSince(startedAt)) * speed }
    func isFinished(at time: Date) -> Bool { travelled(at: time) >= route.length }
}

struct DeviceRecord: Codable, Equatable, Sendable {
    var id: String
    var name: String?
    var metadata: JSON
    var registeredAt: Date
    var position: Coordinate
    var lastRecordedAt: Date
    var speed: Double = 0
    var bearing: Double = 0
    /// Tracking started explicitly (`POST /devices/{id}/start`).
    var startedExplicitly = false
    /// Tracking stopped explicitly (`POST /devices/{id}/stop`), until a start or a new trip.
    var stoppedExplicitly = false
    var deleted = false
    var trackingID: String
    var motion: Motion?
    var locations: [LocationSample] = []
}

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

/// Everything the emulator knows; what `--export` writes and `--import` reads.
struct EmulatorState: Codable, Sendable {
    static let formatVersion = 1

    var formatVersion = EmulatorState.formatVersion
    var now: Date
    var nextTickAt: Date
    var random: SplitMix64
    var devices: [String: DeviceRecord] = [:]
    var deviceOrder: [String] = []
    var trips: [String: TripRecord] = [:]
    var tripOrder: [String] = []
    var geofences: [String: GeofenceRecord] = [:]
    var geofenceOrder: [String] = []
    var nearby: [String: NearbyRequestRecord] = [:]
}
