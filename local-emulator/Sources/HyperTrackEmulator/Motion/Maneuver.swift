import Foundation

/// A driving manoeuvre injected into a trip's drive through the control API (`POST /_emulator/trips/{id}/maneuvers`),
/// so a test knows exactly which driving events the trip's locations must show: each goes clearly past one of the
/// backend detector's thresholds and stays inside the others (rates in ``DrivingLimits``).
///
/// It starts at ``at`` seconds into the drive and changes the plan from then on only:
/// - `hard_brake`: down to a fifth of the speed at 6 m/s², held 2 s, then the normal drive (1.5 m/s² back up);
/// - `rapid_acceleration`: down to a fifth at 2 m/s², held 2 s, back to the speed at 4 m/s²;
/// - `speeding`: up to ``speed`` at 1.5 m/s², held ``duration`` seconds (default 20), back at 2 m/s²;
/// - `hard_turn`: the next corner that allows it (see ``hardTurnCorner(track:zones:after:)``) is taken at the speed
///   giving 6 m/s² of side acceleration, approached and left at the normal rates.
///
/// The first three are refused where they would run into a corner or leave too little room to brake for what is
/// ahead, and a hard brake where the car is too slow for two reports to see its rate; the engine then tries the
/// following seconds (``Engine/addManeuver(tripID:body:)``).
struct Maneuver: Codable, Equatable, Sendable {
    enum Kind: String, Codable, Sendable, CaseIterable {
        case hardBrake = "hard_brake"
        case rapidAcceleration = "rapid_acceleration"
        case speeding
        case hardTurn = "hard_turn"
    }

    var kind: Kind
    /// Seconds after the drive started.
    var at: Double
    /// `speeding`: the speed held, m/s.
    var speed: Double?
    /// `speeding`: seconds the speed is held.
    var duration: Double?
    /// `hard_turn`: the index of the corner's arc among the track's pieces.
    var corner: Int?

    /// The plan with this manoeuvre applied from ``at`` on; `nil` where it cannot be driven there. A hard turn
    /// raises its corner's cap in `zones`, so later manoeuvres keep it.
    func apply(to plan: SpeedPlan, zones: inout [SpeedZone], track: Track) -> SpeedPlan? {
        guard at < plan.duration else { return nil }
        let (kept, distance, speed) = plan.cut(at: at)
        let margin = DrivingLimits.denseMargin
        if kind == .hardTurn {
            guard let corner, track.pieces.indices.contains(corner), let radius = track.pieces[corner].radius,
                track.pieces[corner].start >= distance
            else { return nil }
            let arc = track.pieces[corner]
            let turnSpeed = (DrivingLimits.hardTurn * radius).squareRoot()
            var raised = zones
            raised[corner].cap = turnSpeed
            guard let rest = SpeedPlan.drive(zones: raised, from: distance, speed: speed, at: at) else { return nil }
            let next = SpeedPlan(phases: kept + rest, length: plan.length)
            let entry = next.time(at: arc.start)
            let exit = next.time(at: arc.end)
            // The whole arc at the turn speed, or the side acceleration is not what was asked.
            guard next.state(at: entry + 1e-6).speed >= turnSpeed - 1e-6,
                next.state(at: exit - 1e-6).speed >= turnSpeed - 1e-6
            else { return nil }
            zones = raised
            return SpeedPlan(
                phases: next.phases,
                length: plan.length,
                dense: plan.dense + [[entry - margin, exit + margin]]
            )
        }
        guard speed >= DrivingLimits.manoeuvreSpeed || kind == .speeding else { return nil }
        var forced: [SpeedPlan.Phase] = []
        var t = at
        var position = distance
        func add(_ duration: Double, _ v0: Double, _ v1: Double) {
            guard duration > 0 else { return }
            forced.append(SpeedPlan.Phase(start: t, duration: duration, v0: v0, v1: v1, distance: position))
            t += duration
            position += (v0 + v1) / 2 * duration
        }
        let low = speed / 5
        let resume: Double
        switch kind {
        case .hardBrake:
            // The sharp part lasts a report's second at least, or no two reports see its 6 m/s² (see
            // ``DrivingLimits/hardBrakeSpeed``).
            guard speed >= DrivingLimits.hardBrakeSpeed else { return nil }
            add((speed - low) / DrivingLimits.hardBrake, speed, low)
            add(DrivingLimits.hold, low, low)
            resume = low
        case .rapidAcceleration:
            add((speed - low) / DrivingLimits.braking, speed, low)
            add(DrivingLimits.hold, low, low)
            add((speed - low) / DrivingLimits.rapidAcceleration, low, speed)
            resume = speed
        case .speeding:
            guard let target = self.speed, target > speed else { return nil }
            add((target - speed) / DrivingLimits.acceleration, speed, target)
            add(self.duration ?? 20, target, target)
            add((target - speed) / DrivingLimits.braking, target, speed)
            resume = speed
        case .hardTurn:
            return nil
        }
        // On one straight: no corner taken at a manoeuvre's speed, and one posted limit throughout.
        let straight = track.pieces[track.pieceIndex(at: distance)]
        guard !straight.isArc, position < straight.end else { return nil }
        guard let rest = SpeedPlan.drive(zones: zones, from: position, speed: resume, at: t) else { return nil }
        return SpeedPlan(
            phases: kept + forced + rest,
            length: plan.length,
            dense: plan.dense + [[at - margin, t + margin]]
        )
    }

    /// The first corner at or after `distance` metres where a hard turn is clear to the detector: it turns 60° or
    /// more, the turn speed `√(6 · r)` is 6 m/s at least and no faster than the streets on either side allow, and
    /// the arc lasts 1.5 s at that speed, so two 1-second reports see most of it.
    static func hardTurnCorner(track: Track, zones: [SpeedZone], after distance: Double) -> Int? {
        track.pieces.indices.first { index in
            let piece = track.pieces[index]
            guard let radius = piece.radius, piece.start >= distance, index > 0, index + 1 < zones.count else {
                return false
            }
            let turnSpeed = (DrivingLimits.hardTurn * radius).squareRoot()
            return abs(piece.turn) >= .pi / 3 && turnSpeed >= 6 && turnSpeed <= zones[index - 1].cap
                && turnSpeed <= zones[index + 1].cap && piece.length / turnSpeed >= 1.5
        }
    }
}
