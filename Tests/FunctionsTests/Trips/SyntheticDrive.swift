import Foundation

@testable import Functions

/// Builds synthetic drives: a start, then one sample per step with the speed and bearing of that step; each sample
/// is placed where driving the previous step at the previous sample's speed and bearing puts it.
struct SyntheticDrive {
    var points: [TripPoint]

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Starts at Alexanderplatz.
    init(speed: Double, bearing: Double = 90, at time: Date = SyntheticDrive.start) {
        self.points = [TripPoint(time: time, latitude: 52.5219, longitude: 13.4132, speed: speed, bearing: bearing)]
    }

    /// Returns the drive with a sample `dt` seconds after the last, with this speed and bearing.
    func step(dt: TimeInterval = 1, speed: Double, bearing: Double? = nil) -> Self {
        var drive = self
        let last = self.points[self.points.count - 1]
        let travelled = ((last.speed ?? 0) + speed) / 2 * dt
        let (latitude, longitude) = Earth.destination(from: last, bearing: last.bearing ?? 0, distance: travelled)
        drive.points.append(
            TripPoint(
                time: last.time.addingTimeInterval(dt),
                latitude: latitude,
                longitude: longitude,
                speed: speed,
                bearing: bearing ?? last.bearing
            )
        )
        return drive
    }

    /// Returns the drive with `count` samples one second apart at a constant speed and bearing.
    func cruise(_ count: Int, speed: Double? = nil, dt: TimeInterval = 1) -> Self {
        let speed = speed ?? self.points[self.points.count - 1].speed ?? 0
        var drive = self
        for _ in 0..<count { drive = drive.step(dt: dt, speed: speed) }
        return drive
    }

    /// Returns the drive with samples changing speed by `acceleration` m/s² each second for `seconds` seconds.
    func accelerate(_ acceleration: Double, seconds: Int) -> Self {
        var drive = self
        for _ in 0..<seconds {
            let speed = (drive.points[drive.points.count - 1].speed ?? 0) + acceleration
            drive = drive.step(speed: max(0, speed))
        }
        return drive
    }

    /// Returns the drive with samples turning by `degreesPerSecond` each second for `seconds` seconds at the current speed.
    func turn(_ degreesPerSecond: Double, seconds: Int) -> Self {
        var drive = self
        for _ in 0..<seconds {
            let last = drive.points[drive.points.count - 1]
            let bearing = ((last.bearing ?? 0) + degreesPerSecond + 360).truncatingRemainder(dividingBy: 360)
            drive = drive.step(speed: last.speed ?? 0, bearing: bearing)
        }
        return drive
    }
}

/// A seeded generator, so a noisy path is the same on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension DrivingEventDetector {
    /// The detector with a posted limit of `limit` km/h everywhere.
    static func limit(_ limit: Double = 50) -> DrivingEventDetector {
        DrivingEventDetector(postedLimit: { _ in limit })
    }
}
