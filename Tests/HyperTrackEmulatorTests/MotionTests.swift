import Foundation
import Testing

@testable import HyperTrackEmulator

/// The emulator's drivers: the speed plan (accelerate, cruise, brake), corner arcs, and the limits a plan keeps,
/// checked against numbers worked out by hand.
@Suite("Motion: drivers accelerate, brake and turn within realistic limits")
struct MotionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let origin = Coordinate(longitude: 13.40, latitude: 52.52)

    /// A route `north` metres north then `east` metres east of ``origin`` (one 90° right turn).
    static func lRoute(north: Double, east: Double) -> Route {
        let corner = Geo.offset(origin, north: north, east: 0)
        return Route(points: [origin, corner, Geo.offset(corner, north: 0, east: east)])
    }

    /// A straight route `metres` east of ``origin``.
    static func straight(_ metres: Double) -> Route {
        Route(points: [origin, Geo.offset(origin, north: 0, east: metres)])
    }

    @Test(
        "a 200 m zone capped at 10 m/s: 0 → 10 at 1.5 m/s² (6.67 s, 33.3 m), 141.7 m cruising, 10 → 0 at 2 m/s² (5 s)"
    )
    func trapezoid() throws {
        let phases = try #require(
            SpeedPlan.drive(zones: [SpeedZone(start: 0, end: 200, cap: 10)], from: 0, speed: 0, at: 0)
        )
        #expect(phases.count == 3)
        #expect(abs(phases[0].duration - 20.0 / 3) < 1e-9 && phases[0].v1 == 10)
        #expect(abs(phases[1].distance - 100.0 / 3) < 1e-9)
        #expect(abs(phases[1].duration - (200 - 100.0 / 3 - 25) / 10) < 1e-9)
        #expect(abs(phases[2].duration - 5) < 1e-9 && phases[2].v1 == 0)
        let plan = SpeedPlan(phases: phases, length: 200)
        #expect(abs(plan.duration - (20.0 / 3 + 14.166_666_666_666_666 + 5)) < 1e-9)
        #expect(abs(plan.state(at: 2).speed - 3) < 1e-9)  // 1.5 · 2
        #expect(abs(plan.state(at: 2).distance - 3) < 1e-9)  // 1.5 · 2² / 2
        #expect(plan.state(at: plan.duration + 1) == (200, 0))
    }

    @Test("a 30 m zone is too short to reach its cap: peak √(2·1.5·2·30 / 3.5) = 7.17 m/s")
    func triangle() throws {
        let phases = try #require(
            SpeedPlan.drive(zones: [SpeedZone(start: 0, end: 30, cap: 20)], from: 0, speed: 0, at: 0)
        )
        #expect(phases.count == 2)
        #expect(abs(phases[0].v1 - (180.0 / 3.5).squareRoot()) < 1e-9)
        #expect(abs(phases.map(\.length).reduce(0, +) - 30) < 1e-9)
    }

    @Test("a driver rolling at 12 m/s towards a 3 m/s corner 20 m ahead cannot brake at 2 m/s²: no plan")
    func tooFast() {
        let zones = [
            SpeedZone(start: 0, end: 20, cap: 15), SpeedZone(start: 20, end: 40, cap: 3),
            SpeedZone(start: 40, end: 500, cap: 15),
        ]
        // √(3² + 2 · 2 · 20) = 9.4 m/s is the most that can still make the corner.
        #expect(SpeedPlan.drive(zones: zones, from: 0, speed: 12, at: 0) == nil)
        #expect(SpeedPlan.drive(zones: zones, from: 0, speed: 9.4, at: 0) != nil)
    }

    @Test("a 90° corner: the arc cuts 12 m from each street (r = 12 m, 18.85 m of arc), the heading turns through it")
    func cornerArc() throws {
        let track = Track(route: Self.lRoute(north: 300, east: 300))
        #expect(track.pieces.count == 3)
        let arc = track.pieces[1]
        let radius = try #require(arc.radius)
        #expect(abs(radius - 12) < 0.01)
        #expect(abs(arc.start - 288) < 0.01)
        #expect(abs(arc.length - 6 * Double.pi) < 0.01)
        #expect(abs(track.length - (600 - 24 + 6 * Double.pi)) < 0.05)
        #expect(abs(track.bearing(at: 10) - 0) < 1e-6)
        #expect(abs(track.bearing(at: arc.start + arc.length / 2) - 45) < 0.01)
        #expect(abs(track.bearing(at: track.length - 1) - 90) < 1e-6)
        // The arc starts and ends on the streets, and the track ends where the route does.
        let end = Geo.offset(Geo.offset(Self.origin, north: 300, east: 0), north: 0, east: 300)
        #expect(Geo.distance(track.position(at: track.length), end) < 0.05)
        #expect(Geo.distance(track.position(at: arc.start), Geo.offset(Self.origin, north: 288, east: 0)) < 0.05)
    }

    @Test(
        "every limit kept: from rest, ≤ 1.5 m/s² up, ≤ 2 m/s² down, ≤ 2.5 m/s² sideways, under 90% of the limit"
    )
    func limitsKept() {
        for (north, east) in [(300.0, 300.0), (900, 1700), (40, 2500), (1500, 60)] {
            let motion = Motion(
                tripID: "T",
                route: Self.lRoute(north: north, east: east),
                startedAt: Self.start,
                speed: 20
            )
            let plan = motion.plan
            #expect(plan.state(at: 0).speed == 0)
            for phase in plan.phases {
                #expect(phase.acceleration <= DrivingLimits.acceleration + 1e-9)
                #expect(phase.acceleration >= -DrivingLimits.braking - 1e-9)
            }
            var previous = plan.state(at: 0)
            var time = 0.1
            while time < plan.duration {
                let now = plan.state(at: time)
                let limit = motion.track.limit(at: now.distance) / 3.6 * 0.9
                #expect(now.speed <= limit + 1e-9, "\(now.speed) m/s over \(limit) at \(now.distance) m")
                let turn = Track.normalized(
                    (motion.track.bearing(at: now.distance) - motion.track.bearing(at: previous.distance)) * .pi / 180
                )
                let lateral = (now.speed + previous.speed) / 2 * abs(turn) / 0.1
                #expect(lateral <= DrivingLimits.lateral + 0.05, "\(lateral) m/s² at \(now.distance) m")
                previous = now
                time += 0.1
            }
            #expect(plan.state(at: plan.duration).speed == 0)
            #expect(abs(plan.state(at: plan.duration).distance - motion.track.length) < 1e-6)
        }
    }

    @Test("the corner of an L at 20 m/s top speed is taken at √(2.5 · 12) = 5.48 m/s")
    func cornerSpeed() {
        let motion = Motion(tripID: "T", route: Self.lRoute(north: 600, east: 600), startedAt: Self.start, speed: 20)
        let arc = motion.track.pieces[1]
        let entry = motion.plan.time(at: arc.start)
        let exit = motion.plan.time(at: arc.end)
        #expect(abs(motion.plan.state(at: (entry + exit) / 2).speed - 30.0.squareRoot()) < 1e-6)
        // 18.85 m at 5.48 m/s.
        #expect(abs(exit - entry - 6 * Double.pi / 30.0.squareRoot()) < 1e-6)
    }

    /// A straight 2 km drive at a top speed of `speed` m/s, 7 unless told (under every class's 90%, so the limit
    /// does not matter): 0 → 7 in 4.67 s.
    static func cruising(_ maneuvers: [Maneuver], speed: Double = 7) throws -> SpeedPlan {
        let motion = Motion(tripID: "T", route: Self.straight(2000), startedAt: Self.start, speed: speed)
        return try #require(motion.replanned(with: maneuvers))
    }

    @Test("a hard brake at 20 s: 7.5 → 1.5 m/s at 6 m/s² (1 s, so 1-second reports see it all), 2 s held, back up")
    func hardBrake() throws {
        let plan = try Self.cruising([Maneuver(kind: .hardBrake, at: 20)], speed: 7.5)
        #expect(plan.state(at: 20).speed == 7.5)
        #expect(abs(plan.state(at: 20.5).speed - 4.5) < 1e-9)  // 7.5 − 6 · 0.5
        #expect(abs(plan.state(at: 21).speed - 1.5) < 1e-9)  // the report a second in: −6 m/s²
        #expect(abs(plan.state(at: 22).speed - 1.5) < 1e-9)  // held from 21 to 23
        #expect(abs(plan.state(at: 24).speed - (1.5 + 1.5 * (24 - 23))) < 1e-9)
        #expect(plan.state(at: 40).speed == 7.5)
        // 1-second reports from 2 s before the brake to 2 s after its hold: 18 ... 25.
        #expect(plan.dense.count == 1)
        #expect(abs(plan.dense[0][0] - 18) < 1e-9 && abs(plan.dense[0][1] - 25) < 1e-9)
    }

    @Test("a hard brake from under 7.5 m/s is refused: its 6 m/s² would last under the reports' second")
    func hardBrakeTooSlow() {
        // The floor is the speed whose drop to a fifth at the brake's rate takes one report interval.
        let drop = DrivingLimits.hardBrakeSpeed * 4 / 5 / DrivingLimits.hardBrake
        #expect(abs(drop - DrivingLimits.denseInterval) < 1e-9)
        // 7 → 1.4 m/s would take 0.93 s: reports at 20 and 21 s would see −5.6 m/s².
        let motion = Motion(tripID: "T", route: Self.straight(2000), startedAt: Self.start, speed: 7)
        #expect(motion.replanned(with: [Maneuver(kind: .hardBrake, at: 20)]) == nil)
    }

    @Test("a rapid acceleration at 20 s: 7 → 1.4 at 2 m/s² (2.8 s), 2 s held, 1.4 → 7 at 4 m/s² (1.4 s)")
    func rapidAcceleration() throws {
        let plan = try Self.cruising([Maneuver(kind: .rapidAcceleration, at: 20)])
        #expect(abs(plan.state(at: 21).speed - 5) < 1e-9)
        #expect(abs(plan.state(at: 24).speed - 1.4) < 1e-9)
        #expect(abs(plan.state(at: 24.8 + 1).speed - 5.4) < 1e-9)  // 1.4 + 4 · 1
        #expect(abs(plan.state(at: 26.2).speed - 7) < 1e-9)
    }

    @Test("speeding at 20 s to 20 m/s for 5 s: up at 1.5 m/s² (8.67 s), held, down at 2 m/s² (6.5 s)")
    func speeding() throws {
        let plan = try Self.cruising([Maneuver(kind: .speeding, at: 20, speed: 20, duration: 5)])
        #expect(abs(plan.state(at: 22).speed - 10) < 1e-9)
        #expect(plan.state(at: 30).speed == 20)
        #expect(abs(plan.state(at: 20 + 13 / 1.5 + 5 + 3).speed - 14) < 1e-9)
        #expect(abs(plan.state(at: 40.2).speed - 7) < 1e-9)
        // Distance: 4.67 s to 7 m/s (16.33 m), 7 · 15.33 cruising, the ramps' (7 + 20) / 2 · (8.67 + 6.5), 100 held.
        let expected = 49.0 / 3 + 7 * (20 - 7.0 / 1.5) + 13.5 * (13 / 1.5 + 6.5) + 100
        #expect(abs(plan.state(at: 20 + 13 / 1.5 + 5 + 6.5).distance - expected) < 1e-6)
    }

    @Test("a manoeuvre that would run into a corner or the destination is refused")
    func refused() {
        let motion = Motion(tripID: "T", route: Self.straight(300), startedAt: Self.start, speed: 7)
        // 300 m: at 7 m/s the brake for the end starts 12.25 m before it, 41.4 s after the start.
        #expect(motion.replanned(with: [Maneuver(kind: .speeding, at: 30, speed: 20, duration: 20)]) == nil)
        #expect(motion.replanned(with: [Maneuver(kind: .rapidAcceleration, at: 2)]) == nil)  // 3 m/s, under 5
        #expect(motion.replanned(with: [Maneuver(kind: .rapidAcceleration, at: 10)]) != nil)
    }

    @Test("a hard turn takes a 90° corner of r = 12 m at √(6 · 12) = 8.49 m/s: 6 m/s² sideways, 2.2 s of arc")
    func hardTurn() throws {
        // Streets fast enough for 8.49 m/s on both sides of the corner (not residential).
        let route = try #require(
            (1...40).lazy.map { Self.lRoute(north: 500 + Double($0), east: 700) }.first { route in
                let track = Track(route: route)
                return track.pieces[0].roadClass != .residential && track.pieces[2].roadClass != .residential
            }
        )
        let motion = Motion(tripID: "T", route: route, startedAt: Self.start, speed: 12)
        let zones = Motion.zones(motion.track, speed: 12)
        #expect(Maneuver.hardTurnCorner(track: motion.track, zones: zones, after: 0) == 1)
        let plan = try #require(motion.replanned(with: [Maneuver(kind: .hardTurn, at: 10, corner: 1)]))
        let arc = motion.track.pieces[1]
        let entry = plan.time(at: arc.start)
        let exit = plan.time(at: arc.end)
        let speed = plan.state(at: (entry + exit) / 2).speed
        #expect(abs(speed - 72.0.squareRoot()) < 1e-6)
        #expect(abs(speed * speed / 12 - 6) < 1e-6)
        #expect(abs(exit - entry - 6 * Double.pi / 72.0.squareRoot()) < 1e-6)
        // Approached and left at the normal rates.
        for phase in plan.phases {
            #expect(phase.acceleration <= DrivingLimits.acceleration + 1e-9)
            #expect(phase.acceleration >= -DrivingLimits.braking - 1e-9)
        }
        #expect(abs(plan.dense[0][0] - (entry - 2)) < 1e-9 && abs(plan.dense[0][1] - (exit + 2)) < 1e-9)
        // Before the manoeuvre's second the plan is unchanged.
        #expect(plan.state(at: 9.5) == motion.plan.state(at: 9.5))
    }

    @Test("1-second reports fall on the drive's whole seconds inside a manoeuvre's window, between two steps")
    func denseSamples() throws {
        var motion = Motion(tripID: "T", route: Self.straight(2000), startedAt: Self.start, speed: 7.5)
        motion.plan = try Self.cruising([Maneuver(kind: .hardBrake, at: 20)], speed: 7.5)
        let at = { (seconds: Double) in Self.start.addingTimeInterval(seconds) }
        #expect(motion.denseSamples(after: at(10), before: at(15)).isEmpty)
        #expect(motion.denseSamples(after: at(15), before: at(20)) == [at(18), at(19)])
        #expect(motion.denseSamples(after: at(20), before: at(25)) == [at(21), at(22), at(23), at(24)])
        #expect(motion.denseSamples(after: at(25), before: at(30)).isEmpty)
    }

    @Test("a motion exported before drives were planned (no track, no plan) imports planned from its start")
    func legacyState() throws {
        let motion = Motion(tripID: "T", route: Self.lRoute(north: 300, east: 300), startedAt: Self.start, speed: 10)
        var object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(motion)) as? [String: Any]
        )
        #expect(object["plan"] != nil && object["track"] != nil)
        object["plan"] = nil
        object["track"] = nil
        object["initialSpeed"] = nil
        let decoded = try JSONDecoder().decode(Motion.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(decoded == motion)
    }
}
