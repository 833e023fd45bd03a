import Foundation

extension Engine {
    /// Adds a manoeuvre to the drive of an active trip (`POST /_emulator/trips/{id}/maneuvers`).
    ///
    /// Body: `{"kind": "hard_brake" | "rapid_acceleration" | "speeding" | "hard_turn", "after_seconds": N}`
    /// (seconds after the trip's drive started, not before the current time nor before the previous manoeuvre
    /// ended), and for `speeding` `"speed_kmh"` (above the configured speed) and optionally `"duration_seconds"`
    /// (default 20). The manoeuvre starts at the first whole second from `after_seconds` on where it can be driven
    /// (see ``Maneuver``); a hard turn takes the first suitable corner after that.
    /// - Returns: the trip's manoeuvres so far, each with the second it starts, and for speeding the posted limit
    ///   there, for a hard turn the second the corner starts.
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
        let previousEnd = (motion.plan.dense.last?[1]).map { $0 - DrivingLimits.denseMargin } ?? 0
        let earliest = max(elapsed, previousEnd)
        guard let at = body["after_seconds"]?.doubleValue, at.isFinite, at >= earliest, at <= 86_400 else {
            throw .invalid(
                "after_seconds",
                "seconds after the drive started, not before now (\(elapsed)) nor before the previous manoeuvre "
                    + "ended (\(previousEnd))"
            )
        }
        var template = Maneuver(kind: kind, at: at)
        if kind == .speeding {
            guard let kmh = body["speed_kmh"]?.doubleValue, kmh / 3.6 > motion.speed, kmh <= 300 else {
                throw .invalid(
                    "speed_kmh",
                    "a speed above the drivers' top speed (\(motion.speed * 3.6) km/h), at most 300"
                )
            }
            template.speed = kmh / 3.6
            if let duration = body["duration_seconds"] {
                guard let seconds = duration.doubleValue, seconds >= 1, seconds <= 3600 else {
                    throw .invalid("duration_seconds", "1 to 3600")
                }
                template.duration = seconds
            }
        }
        let existing = motion.maneuvers ?? []
        var zones = Motion.zones(motion.track, speed: motion.speed)
        for corner in existing.compactMap(\.corner) {
            if let radius = motion.track.pieces[corner].radius {
                zones[corner].cap = (DrivingLimits.hardTurn * radius).squareRoot()
            }
        }
        var second = at.rounded(.up)
        var found: (Maneuver, SpeedPlan)?
        while found == nil, second < motion.plan.duration {
            var candidate = template
            candidate.at = second
            if kind == .hardTurn {
                let distance = motion.plan.state(at: second).distance
                candidate.corner = Maneuver.hardTurnCorner(track: motion.track, zones: zones, after: distance)
            }
            if kind != .hardTurn || candidate.corner != nil, let plan = motion.replanned(with: existing + [candidate]) {
                found = (candidate, plan)
            }
            second += 1
        }
        guard let (maneuver, plan) = found else {
            throw .invalid(
                "after_seconds",
                "no second from \(at) s to the drive's end (\(motion.plan.duration.rounded()) s) allows a "
                    + "\(kind.rawValue): it needs a straight driven at \(DrivingLimits.manoeuvreSpeed) m/s or more "
                    + "(a hard brake \(DrivingLimits.hardBrakeSpeed)) with room to brake for what is ahead (a hard "
                    + "turn: a corner of 60° or more between streets fast enough for it)"
            )
        }
        // Only the plan ahead changes (the manoeuvre is not in the past), so the positions so far stay true.
        motion.maneuvers = existing + [maneuver]
        motion.plan = plan
        device.motion = motion
        state.devices[trip.deviceID] = device
        return [
            "trip_id": .string(tripID),
            "maneuvers": .array((motion.maneuvers ?? []).map { render($0, of: motion) }),
        ]
    }

    func render(_ maneuver: Maneuver, of motion: Motion) -> JSON {
        var json: [String: JSON] = ["kind": .string(maneuver.kind.rawValue), "after_seconds": .number(maneuver.at)]
        if let speed = maneuver.speed { json["speed_kmh"] = .number(speed * 3.6) }
        if let duration = maneuver.duration { json["duration_seconds"] = .number(duration) }
        if maneuver.kind == .speeding {
            json["posted_limit_kmh"] = .number(motion.track.limit(at: motion.plan.state(at: maneuver.at).distance))
        }
        if let corner = maneuver.corner, motion.track.pieces.indices.contains(corner) {
            let arc = motion.track.pieces[corner]
            json["corner_seconds"] = .number((motion.plan.time(at: arc.start) * 10).rounded() / 10)
            json["lateral_acceleration"] = .number(DrivingLimits.hardTurn)
        }
        return .object(json)
    }
}
