import Foundation

/// A driving manoeuvre injected into a trip's motion through the control API (`POST
/// /_emulator/trips/{id}/maneuvers`), so a test knows exactly which driving events the trip's locations must show.
///
/// The device otherwise drives at the configured constant speed. A manoeuvre is a few phases of linear speed change
/// starting `at` seconds after the motion started; outside them the speed is the cruise speed. The rates are chosen
/// to be clearly on one side of the backend's detector thresholds, with 1-second location samples:
/// - `hard_brake`: down to a fifth of the cruise speed at 6 m/s² (an emergency stop is 8–10), held 2 s, back at
///   1 m/s²;
/// - `rapid_acceleration`: down to a fifth at 1 m/s², held 2 s, back at 4 m/s² (a sports car's full throttle);
/// - `speeding`: up to `speed` at 1.5 m/s², held `duration` seconds (default 20), back down at 1.5 m/s².
/// Phases last whole seconds where a rate is gentle, so the sharp phase starts on the emulator's tick grid.
struct Maneuver: Codable, Equatable, Sendable {
    enum Kind: String, Codable, Sendable, CaseIterable {
        case hardBrake = "hard_brake"
        case rapidAcceleration = "rapid_acceleration"
        case speeding
    }

    var kind: Kind
    /// Seconds after the motion started.
    var at: Double
    /// `speeding`: the speed held, m/s.
    var speed: Double?
    /// `speeding`: seconds the speed is held.
    var duration: Double?

    /// One phase of a speed profile: from `v0` to `v1` linearly over `duration` seconds.
    struct Phase: Equatable, Sendable {
        var start: Double
        var duration: Double
        var v0: Double
        var v1: Double
    }

    /// The manoeuvre's phases at cruise speed `v`, starting at `start` (at least ``at``).
    func phases(cruise v: Double, start: Double) -> [Phase] {
        let low = v / 5
        var phases: [Phase] = []
        var t = start
        func add(_ duration: Double, _ v0: Double, _ v1: Double) {
            phases.append(Phase(start: t, duration: duration, v0: v0, v1: v1))
            t += duration
        }
        switch self.kind {
        case .hardBrake:
            add((v - low) / 6, v, low)
            add(2, low, low)
            add((v - low).rounded(.up), low, v)
        case .rapidAcceleration:
            add((v - low).rounded(.up), v, low)
            add(2, low, low)
            add((v - low) / 4, low, v)
        case .speeding:
            let target = self.speed ?? v
            let ramp = (abs(target - v) / 1.5).rounded(.up)
            add(ramp, v, target)
            add(self.duration ?? 20, target, target)
            add(ramp, target, v)
        }
        return phases
    }
}

extension Motion {
    /// The speed profile: the manoeuvres' phases in time order, each starting no earlier than the previous ended.
    var phases: [Maneuver.Phase] {
        var phases: [Maneuver.Phase] = []
        var free = 0.0
        for maneuver in (self.maneuvers ?? []).sorted(by: { $0.at < $1.at }) {
            let added = maneuver.phases(cruise: self.speed, start: max(maneuver.at, free))
            phases += added
            free = added.last.map { $0.start + $0.duration } ?? free
        }
        return phases
    }

    /// Metres travelled `elapsed` seconds after the start, and the speed then.
    func profile(at elapsed: Double) -> (distance: Double, speed: Double) {
        var distance = 0.0
        var t = 0.0
        for phase in self.phases {
            distance += max(0, min(elapsed, phase.start) - t) * self.speed
            if elapsed < phase.start { return (distance, self.speed) }
            let inside = min(elapsed - phase.start, phase.duration)
            let rate = phase.duration > 0 ? (phase.v1 - phase.v0) / phase.duration : 0
            distance += phase.v0 * inside + rate * inside * inside / 2
            t = phase.start + inside
            // At a phase's very end its final speed holds (the next phase starts from it).
            if elapsed <= phase.start + phase.duration { return (distance, phase.v0 + rate * inside) }
        }
        distance += max(0, elapsed - t) * self.speed
        return (distance, self.speed)
    }
}
