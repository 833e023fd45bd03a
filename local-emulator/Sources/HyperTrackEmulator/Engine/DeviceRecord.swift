import Foundation

/// One recorded position of a device.
struct LocationSample: Codable, Equatable, Sendable {
    var coordinate: Coordinate
    var recordedAt: Date
    var speed: Double
    var bearing: Double
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
    /// Told to go offline (`POST /_emulator/devices/{id}/offline`): it keeps moving but reports nothing and shows
    /// `disconnected`. Optional (as the two below) so a state exported before these fields existed still imports.
    var offline: Bool?
    /// The last `device_status` sent, as ``Engine/statusKey(_:)`` spells it; `nil` until one was sent.
    var reportedStatus: String?
    /// When the last `location` webhook was produced (the periodic report counts from here).
    var lastReportedAt: Date?
    var trackingID: String
    var motion: Motion?
    var locations: [LocationSample] = []

    /// Appends a sample unless it repeats the last one (same time and place).
    mutating func record(_ sample: LocationSample) {
        if let last = locations.last, last.recordedAt == sample.recordedAt, last.coordinate == sample.coordinate {
            return
        }
        locations.append(sample)
    }
}
