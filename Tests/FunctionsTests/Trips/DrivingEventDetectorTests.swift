import Foundation
import Testing

@testable import Functions

@Suite("Driving event detector on synthetic paths")
struct DrivingEventDetectorTests {
    let detector = DrivingEventDetector.limit(50)

    @Test("a steady drive at 43 km/h in a straight line has no events")
    func steady() {
        let drive = SyntheticDrive(speed: 12).cruise(120)
        #expect(self.detector.events(in: drive.points).isEmpty)
    }

    @Test("GPS jitter (±3 m, ±0.4 m/s, ±4°) on a steady drive and a phone at a standstill makes no event")
    func jitter() {
        var random = SeededRandom(state: 42)
        let drive = SyntheticDrive(speed: 12).cruise(300)
        let noisy = drive.points.map { point in
            var point = point
            point.latitude += Double.random(in: -3...3, using: &random) / 111_000
            point.longitude += Double.random(in: -3...3, using: &random) / 68_000
            point.speed = max(0, (point.speed ?? 0) + Double.random(in: -0.4...0.4, using: &random))
            point.bearing = (point.bearing ?? 0) + Double.random(in: -4...4, using: &random)
            return point
        }
        #expect(self.detector.events(in: noisy).isEmpty)
        // Standing still, a phone reports any bearing and a speed of a few tenths.
        let standing = (0..<120).map { second in
            TripPoint(
                time: SyntheticDrive.start.addingTimeInterval(Double(second)),
                latitude: 52.5219 + Double.random(in: -3...3, using: &random) / 111_000,
                longitude: 13.4132 + Double.random(in: -3...3, using: &random) / 68_000,
                speed: Double.random(in: 0...0.5, using: &random),
                bearing: Double.random(in: 0..<360, using: &random)
            )
        }
        #expect(self.detector.events(in: standing).isEmpty)
    }

    @Test("hard braking: −3.0 m/s² is an event (one per run, with its peak), −2.9 m/s² is not")
    func braking() throws {
        let drive = SyntheticDrive(speed: 14).cruise(10).accelerate(-3.0, seconds: 3).cruise(10)
        let events = self.detector.events(in: drive.points)
        #expect(events.map(\.kind) == [.hardBraking])
        let event = try #require(events.first)
        #expect(event.start.time == SyntheticDrive.start.addingTimeInterval(10))
        #expect(event.end.time == SyntheticDrive.start.addingTimeInterval(13))
        #expect(event.peakAcceleration == -3.0)

        let gentle = SyntheticDrive(speed: 14).cruise(10).accelerate(-2.9, seconds: 4).cruise(10)
        #expect(self.detector.events(in: gentle.points).isEmpty)
    }

    @Test("rapid acceleration: 2.5 m/s² is an event, 2.4 m/s² is not")
    func acceleration() {
        let drive = SyntheticDrive(speed: 0).cruise(5).accelerate(2.5, seconds: 4).cruise(5)
        #expect(self.detector.events(in: drive.points).map(\.kind) == [.rapidAcceleration])

        let calm = SyntheticDrive(speed: 0).cruise(5).accelerate(2.4, seconds: 4).cruise(5)
        #expect(self.detector.events(in: calm.points).isEmpty)
    }

    @Test("a speed change under 2 m/s is no event, even above the threshold (points half a second apart)")
    func minimumSpeedChange() {
        // −3 m/s² for half a second: 1.5 m/s.
        let drive = SyntheticDrive(speed: 10).cruise(4).step(dt: 0.5, speed: 8.5).cruise(4)
        #expect(self.detector.events(in: drive.points).isEmpty)
        // The same for a second: 3 m/s.
        let longer = SyntheticDrive(speed: 10).cruise(4).step(dt: 0.5, speed: 8.5).step(dt: 0.5, speed: 7).cruise(4)
        #expect(self.detector.events(in: longer.points).map(\.kind) == [.hardBraking])
    }

    @Test("points more than 10 s apart are not compared")
    func gap() {
        let drive = SyntheticDrive(speed: 14).cruise(3).step(dt: 11, speed: 0).cruise(3)
        #expect(self.detector.events(in: drive.points).isEmpty)
    }

    @Test("hard turn: 10 m/s turning 23.2°/s (4.05 m/s² lateral) is one event, 22.6°/s (3.95 m/s²) is none")
    func turns() throws {
        // lateral = v · ω: 4.05 / 10 rad/s = 23.20°/s; 3.95 / 10 rad/s = 22.63°/s.
        let sharp = SyntheticDrive(speed: 10, bearing: 0).cruise(5).turn(4.05 / 10 * 180 / .pi, seconds: 4).cruise(5)
        let events = self.detector.events(in: sharp.points)
        #expect(events.map(\.kind) == [.hardTurn])
        #expect(abs(try #require(events.first?.peakAcceleration) - 4.05) < 0.01)

        let smooth = SyntheticDrive(speed: 10, bearing: 0).cruise(5).turn(3.95 / 10 * 180 / .pi, seconds: 4).cruise(5)
        #expect(self.detector.events(in: smooth.points).isEmpty)
    }

    @Test(
        "the emulator's hard turn (90°, r = 12 m, 8.49 m/s: 6 m/s²) is one event at 1 s reports, none at 5 s"
    )
    func reportInterval() {
        // ω = v / r = 8.49 / 12 rad/s = 40.5°/s: two whole seconds of arc, then the last 9°.
        let speed = 72.0.squareRoot()
        let degreesPerSecond = speed / 12 * 180 / .pi
        let drive = SyntheticDrive(speed: speed, bearing: 0).cruise(10)
            .turn(degreesPerSecond, seconds: 2).turn(90 - 2 * degreesPerSecond, seconds: 1).cruise(10)
        #expect(self.detector.events(in: drive.points).map(\.kind) == [.hardTurn])
        // Every fifth point (the emulator's default 5 s step): 90° over 5 s at 8.49 m/s is 2.7 m/s² on average.
        let sparse = drive.points.enumerated().filter { $0.offset % 5 == 0 }.map(\.element)
        #expect(self.detector.events(in: sparse).isEmpty)
    }

    @Test("a sharp change of bearing below 18 km/h (a turn at walking pace, a noisy heading) is no hard turn")
    func slowTurn() {
        let drive = SyntheticDrive(speed: 4.9, bearing: 0).cruise(3).turn(90, seconds: 2).cruise(3)
        #expect(self.detector.events(in: drive.points).isEmpty)
    }

    @Test("speeding: 57.6 km/h under a 50 limit for 5 s is an event with limit, max and average; 4 s is not")
    func speeding() throws {
        // Ramps of 2 m/s² (no acceleration event) to 16 m/s (57.6 km/h), held for 5 s, and back.
        let drive = SyntheticDrive(speed: 12).cruise(10).accelerate(2, seconds: 2).cruise(5, speed: 16).accelerate(
            -2,
            seconds: 2
        ).cruise(10)
        let events = self.detector.events(in: drive.points)
        #expect(events.map(\.kind) == [.speeding])
        let event = try #require(events.first)
        #expect(event.postedLimit == 50)
        #expect(abs(try #require(event.maximumSpeed) - 57.6) < 1e-9)
        #expect(abs(try #require(event.averageSpeed) - 57.6) < 1e-9)
        #expect(event.start.time == SyntheticDrive.start.addingTimeInterval(12))
        #expect(event.end.time == SyntheticDrive.start.addingTimeInterval(17))

        let brief = SyntheticDrive(speed: 12).cruise(10).accelerate(2, seconds: 2).cruise(4, speed: 16).accelerate(
            -2,
            seconds: 2
        ).cruise(10)
        #expect(self.detector.events(in: brief.points).isEmpty)
    }

    @Test("speeding needs more than the limit plus 5 km/h: 54.7 km/h under 50 is none, 55.1 km/h is one")
    func speedingMargin() {
        let under = SyntheticDrive(speed: 15.2).cruise(30)  // 54.72 km/h
        #expect(self.detector.events(in: under.points).isEmpty)
        let over = SyntheticDrive(speed: 15.3).cruise(30)  // 55.08 km/h
        let events = self.detector.events(in: over.points)
        #expect(events.map(\.kind) == [.speeding])
        #expect(events.first?.averageSpeed.map { abs($0 - 55.08) < 1e-9 } == true)
    }

    @Test("without a posted limit nothing is speeding")
    func noLimit() {
        let drive = SyntheticDrive(speed: 40).cruise(30)
        #expect(DrivingEventDetector(postedLimit: { _ in nil }).events(in: drive.points).isEmpty)
    }

    @Test("a drive with a hard brake and a speeding stretch shows exactly those two, in order")
    func both() {
        let drive = SyntheticDrive(speed: 12).cruise(20).accelerate(-4, seconds: 2).cruise(10, speed: 4)
            .accelerate(2, seconds: 6).cruise(20, speed: 17).accelerate(-2, seconds: 2).cruise(10)
        #expect(self.detector.events(in: drive.points).map(\.kind) == [.hardBraking, .speeding])
    }
}
