import Foundation

/// A drive's speed over time: phases of constant acceleration, so positions and speeds at any instant are exact
/// (a state export and import, or a step of any length, lands on the same numbers).
struct SpeedPlan: Codable, Equatable, Sendable {
    /// From speed `v0` to `v1` linearly over `duration` seconds, starting `start` seconds into the drive at
    /// `distance` metres.
    struct Phase: Codable, Equatable, Sendable {
        var start: Double
        var duration: Double
        var v0: Double
        var v1: Double
        var distance: Double

        var end: Double { start + duration }
        var acceleration: Double { duration > 0 ? (v1 - v0) / duration : 0 }
        var length: Double { (v0 + v1) / 2 * duration }

        /// Distance and speed `elapsed` seconds into the drive (inside the phase).
        func state(at elapsed: Double) -> (distance: Double, speed: Double) {
            let t = min(max(0, elapsed - start), duration)
            return (distance + v0 * t + acceleration * t * t / 2, v0 + acceleration * t)
        }
    }

    var phases: [Phase]
    /// Where the drive ends, metres along the track.
    var length: Double
    /// Drive-relative seconds around manoeuvres in which the device reports every second, `[from, to]` pairs.
    var dense: [[Double]] = []

    /// Seconds from the start to the stop at the end.
    var duration: Double { phases.last?.end ?? 0 }

    /// Distance and speed `elapsed` seconds after the start (at the end: the length, standing).
    func state(at elapsed: Double) -> (distance: Double, speed: Double) {
        guard let last = phases.last else { return (length, 0) }
        if elapsed >= last.end { return (length, 0) }
        guard let index = phases.lastIndex(where: { $0.start <= elapsed }) else {
            return (phases[0].distance, phases[0].v0)
        }
        return phases[index].state(at: elapsed)
    }

    /// The phases before `elapsed`, the one running then cut there, and the distance and speed at that instant.
    func cut(at elapsed: Double) -> (phases: [Phase], distance: Double, speed: Double) {
        var kept: [Phase] = []
        for phase in phases where phase.start < elapsed {
            var phase = phase
            if phase.end > elapsed {
                let (_, speed) = phase.state(at: elapsed)
                phase.duration = elapsed - phase.start
                phase.v1 = speed
            }
            kept.append(phase)
        }
        let (distance, speed) = state(at: elapsed)
        return (kept, distance, speed)
    }

    /// When the drive reaches `distance` metres (the end of the drive if never).
    func time(at distance: Double) -> Double {
        for phase in phases where phase.distance + phase.length >= distance {
            let a = phase.acceleration
            let d = distance - phase.distance
            if abs(a) < 1e-12 { return phase.start + (phase.v0 > 0 ? d / phase.v0 : 0) }
            let root = max(0, phase.v0 * phase.v0 + 2 * a * d).squareRoot()
            return phase.start + min(phase.duration, max(0, (root - phase.v0) / a))
        }
        return duration
    }
}

/// A stretch of track with one speed cap (m/s).
struct SpeedZone: Codable, Equatable, Sendable {
    var start: Double
    var end: Double
    var cap: Double
}

extension SpeedPlan {
    /// The fastest drive over `zones` from `distance` at `speed` (`elapsed` seconds into the drive) to a stop at
    /// the end, accelerating at `acceleration` and braking at `braking` at most, never above a zone's cap: the
    /// textbook forward-backward pass over the zone boundaries, then in each zone accelerate, cruise, brake.
    /// - Returns: the phases, or `nil` when `speed` is too high to brake in time for what is ahead.
    static func drive(
        zones: [SpeedZone],
        from distance: Double,
        speed: Double,
        at elapsed: Double,
        acceleration a: Double = DrivingLimits.acceleration,
        braking b: Double = DrivingLimits.braking
    ) -> [Phase]? {
        let ahead = zones.compactMap { zone -> SpeedZone? in
            guard zone.end > distance + 1e-9 else { return nil }
            return SpeedZone(start: max(zone.start, distance), end: zone.end, cap: zone.cap)
        }
        guard !ahead.isEmpty else { return speed < 1e-6 ? [] : nil }
        let count = ahead.count
        // The speed allowed at each boundary by what is ahead (braking), then by what is behind (accelerating).
        var backward = Array(repeating: 0.0, count: count + 1)
        for index in stride(from: count - 1, through: 0, by: -1) {
            let zone = ahead[index]
            let reachable = (backward[index + 1] * backward[index + 1] + 2 * b * (zone.end - zone.start))
                .squareRoot()
            backward[index] = index == 0 ? reachable : min(zone.cap, ahead[index - 1].cap, reachable)
        }
        guard speed <= backward[0] + 1e-9, speed <= ahead[0].cap + 1e-9 else { return nil }
        var forward = [speed]
        for index in 0..<count {
            let zone = ahead[index]
            let reachable = (forward[index] * forward[index] + 2 * a * (zone.end - zone.start)).squareRoot()
            forward.append(min(backward[index + 1], reachable))
        }
        var phases: [Phase] = []
        var t = elapsed
        func add(_ duration: Double, _ v0: Double, _ v1: Double, at position: Double) {
            guard duration > 1e-9 else { return }
            phases.append(Phase(start: t, duration: duration, v0: v0, v1: v1, distance: position))
            t += duration
        }
        for (index, zone) in ahead.enumerated() {
            let u = forward[index]
            let w = forward[index + 1]
            let length = zone.end - zone.start
            let cap = max(zone.cap, u, w)
            let peak = min(cap, ((2 * a * b * length + b * u * u + a * w * w) / (a + b)).squareRoot())
            let up = max(0, (peak * peak - u * u) / (2 * a))
            let down = max(0, (peak * peak - w * w) / (2 * b))
            let level = max(0, length - up - down)
            add((peak - u) / a, u, peak, at: zone.start)
            if peak > 0 { add(level / peak, peak, peak, at: zone.start + up) }
            add((peak - w) / b, peak, w, at: zone.start + up + level)
        }
        return phases
    }
}
