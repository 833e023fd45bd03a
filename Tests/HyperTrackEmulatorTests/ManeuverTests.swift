import Foundation
import Testing

@testable import HyperTrackEmulator

@Suite("Manoeuvres: the speed profile a trip's device drives with")
struct ManeuverTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let route = Route(points: [
        Coordinate(longitude: 13.40, latitude: 52.52), Coordinate(longitude: 13.50, latitude: 52.52),
    ])

    static func motion(_ maneuvers: [Maneuver]?) -> Motion {
        Motion(tripID: "T", route: route, startedAt: start, speed: 10, maneuvers: maneuvers)
    }

    @Test("without manoeuvres the device cruises: distance = speed × time")
    func cruise() {
        let motion = Self.motion(nil)
        #expect(motion.travelled(at: Self.start.addingTimeInterval(42)) == 420)
        #expect(motion.speed(at: Self.start.addingTimeInterval(42)) == 10)
    }

    @Test("a hard brake at 10 s: 10 → 2 m/s at 6 m/s² (1.33 s), 2 s held, back at 1 m/s² (8 s)")
    func hardBrake() {
        let motion = Self.motion([Maneuver(kind: .hardBrake, at: 10)])
        let at = { (seconds: Double) in Self.start.addingTimeInterval(seconds) }
        #expect(motion.speed(at: at(10)) == 10)
        #expect(abs(motion.speed(at: at(11)) - 4) < 1e-9)  // 10 − 6 · 1
        #expect(abs(motion.speed(at: at(12)) - 2) < 1e-9)  // held
        let rampStart: Double = 10 + 4.0 / 3 + 2
        // 2 + 1 · 3 (a Date holds about 0.2 µs at this epoch).
        #expect(abs(motion.speed(at: at(rampStart + 3)) - 5) < 1e-6)
        #expect(motion.speed(at: at(30)) == 10)
        // Distance: 100 m cruising, the brake's (10 + 2) / 2 · 4/3 = 8 m, 2 · 2 = 4 m held, (2 + 10) / 2 · 8 = 48 m.
        let end = 10 + 4.0 / 3 + 2 + 8
        #expect(abs(motion.travelled(at: at(end)) - (100 + 8 + 4 + 48)) < 1e-5)
        #expect(abs(motion.travelled(at: at(end + 10)) - (160 + 100)) < 1e-5)
    }

    @Test("speeding at 20 s to 20 m/s for 5 s: ramps of ⌈10 / 1.5⌉ = 7 s, the speed held to the ramp down")
    func speeding() {
        let motion = Self.motion([Maneuver(kind: .speeding, at: 20, speed: 20, duration: 5)])
        let at = { (seconds: Double) in Self.start.addingTimeInterval(seconds) }
        #expect(motion.speed(at: at(27)) == 20)  // the ramp's end: its final speed holds
        #expect(motion.speed(at: at(30)) == 20)
        #expect(motion.speed(at: at(32)) == 20)
        #expect(abs(motion.speed(at: at(32 + 3.5)) - 15) < 1e-9)
        #expect(motion.speed(at: at(39)) == 10)
        // 200 + 7 · 15 + 5 · 20 + 7 · 15 = 510 m at the end of the manoeuvre.
        #expect(abs(motion.travelled(at: at(39)) - 510) < 1e-9)
    }

    @Test("manoeuvres that overlap run one after the other")
    func overlap() {
        let motion = Self.motion([
            Maneuver(kind: .speeding, at: 5, speed: 16, duration: 2), Maneuver(kind: .hardBrake, at: 6),
        ])
        let phases = motion.phases
        let brake: Double = 8.0 / 6
        let expected: [Double] = [5, 9, 11, 15, 15 + brake, 17 + brake]
        #expect(phases.map(\.start) == expected)
    }
}
