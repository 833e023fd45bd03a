import Foundation

extension Engine {
    /// Adds a manoeuvre to the motion of an active trip (`POST /_emulator/trips/{id}/maneuvers`).
    ///
    /// Body: `{"kind": "hard_brake" | "rapid_acceleration" | "speeding", "after_seconds": N}` (seconds after the
    /// trip's drive started, not before the current time), and for `speeding` `"speed_kmh"` (above the cruise
    /// speed) and optionally `"duration_seconds"` (default 20).
    /// - Returns: the trip's manoeuvres so far.
    func addManeuver(tripID: String, body: JSON) throws(APIProblem) -> JSON {
        let trip = try trip(tripID)
        guard trip.status == .active else { throw .invalid("trip_id", "trip '\(tripID)' is not active") }
        guard var device = state.devices[trip.deviceID], var motion = device.motion, motion.tripID == tripID else {
            throw .invalid("trip_id", "trip '\(tripID)' is not driving (no destination, or arrived)")
        }
        guard let raw = body["kind"]?.stringValue, let kind = Maneuver.Kind(rawValue: raw) else {
            let kinds = Maneuver.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalid("kind", "one of \(kinds)")
        }
        let elapsed = now.timeIntervalSince(motion.startedAt)
        guard let at = body["after_seconds"]?.doubleValue, at.isFinite, at >= elapsed, at <= 86_400 else {
            throw .invalid("after_seconds", "seconds after the drive started, not in the past (now \(elapsed))")
        }
        var maneuver = Maneuver(kind: kind, at: at)
        if kind == .speeding {
            guard let kmh = body["speed_kmh"]?.doubleValue, kmh / 3.6 > motion.speed, kmh <= 300 else {
                throw .invalid("speed_kmh", "a speed above the cruise speed (\(motion.speed * 3.6) km/h), at most 300")
            }
            maneuver.speed = kmh / 3.6
            if let duration = body["duration_seconds"] {
                guard let seconds = duration.doubleValue, seconds >= 1, seconds <= 3600 else {
                    throw .invalid("duration_seconds", "1 to 3600")
                }
                maneuver.duration = seconds
            }
        }
        // Only the profile ahead changes (the manoeuvre is not in the past), so the positions so far stay true.
        motion.maneuvers = (motion.maneuvers ?? []) + [maneuver]
        device.motion = motion
        state.devices[trip.deviceID] = device
        return [
            "trip_id": .string(tripID),
            "maneuvers": .array(
                (motion.maneuvers ?? []).map { item in
                    var json: [String: JSON] = ["kind": .string(item.kind.rawValue), "after_seconds": .number(item.at)]
                    if let speed = item.speed { json["speed_kmh"] = .number(speed * 3.6) }
                    if let duration = item.duration { json["duration_seconds"] = .number(duration) }
                    return .object(json)
                }
            ),
        ]
    }
}
