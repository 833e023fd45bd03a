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
    /// The cruise speed, m/s.
    var speed: Double
    /// Manoeuvres injected through the control API; `nil` (the default) drives at `speed` throughout.
    var maneuvers: [Maneuver]? = nil

    func travelled(at time: Date) -> Double {
        let elapsed = max(0, time.timeIntervalSince(startedAt))
        guard self.maneuvers?.isEmpty == false else { return elapsed * speed }
        return self.profile(at: elapsed).distance
    }

    /// The speed at `time`: the cruise speed, or a manoeuvre's.
    func speed(at time: Date) -> Double {
        guard self.maneuvers?.isEmpty == false else { return speed }
        return self.profile(at: max(0, time.timeIntervalSince(startedAt))).speed
    }
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

    /// Appends a sample unless it repeats the last one (same time and place).
    mutating func record(_ sample: LocationSample) {
        if let last = locations.last, last.recordedAt == sample.recordedAt, last.coordinate == sample.coordinate {
            return
        }
        locations.append(sample)
    }
}
