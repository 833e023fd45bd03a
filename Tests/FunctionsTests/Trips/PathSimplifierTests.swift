import Foundation
import Testing

@testable import Functions

@Suite("Douglas-Peucker path simplification")
struct PathSimplifierTests {
    static let origin = TripPoint(time: SyntheticDrive.start, latitude: 52.5, longitude: 13.4)

    /// A point `east` and `north` metres from the origin.
    static func point(_ east: Double, _ north: Double, second: Int = 0) -> TripPoint {
        let step = Earth.destination(from: origin, bearing: 90, distance: east)
        let moved = TripPoint(time: origin.time, latitude: step.latitude, longitude: step.longitude)
        let (latitude, longitude) = Earth.destination(from: moved, bearing: 0, distance: north)
        return TripPoint(time: origin.time.addingTimeInterval(Double(second)), latitude: latitude, longitude: longitude)
    }

    @Test("a straight line of 100 points keeps its two ends")
    func straight() {
        let line = (0..<100).map { Self.point(Double($0) * 10, 0, second: $0) }
        #expect(PathSimplifier.simplify(line) == [line[0], line[99]])
    }

    @Test("an L keeps its corner")
    func corner() {
        let east = (0...10).map { Self.point(Double($0) * 20, 0, second: $0) }
        let north = (1...10).map { Self.point(200, Double($0) * 20, second: 10 + $0) }
        let path = east + north
        #expect(PathSimplifier.simplify(path) == [path[0], path[10], path[20]])
    }

    @Test("the tolerance is the boundary: a bump of 4.9 m is dropped at 5 m, one of 5.1 m is kept")
    func tolerance() {
        let low = [Self.point(0, 0), Self.point(50, 4.9, second: 1), Self.point(100, 0, second: 2)]
        #expect(PathSimplifier.simplify(low, tolerance: 5).count == 2)
        let high = [Self.point(0, 0), Self.point(50, 5.1, second: 1), Self.point(100, 0, second: 2)]
        #expect(PathSimplifier.simplify(high, tolerance: 5) == high)
    }

    @Test(
        "jitter of ±2 m (a 4 m spread, inside the 5 m tolerance) along a 2 km street leaves its two ends; 0–2 points stay"
    )
    func jitter() {
        var random = SeededRandom(state: 7)
        let street = (0..<400).map { Self.point(Double($0) * 5, Double.random(in: -2...2, using: &random), second: $0) }
        let simplified = PathSimplifier.simplify(street)
        #expect(simplified == [street[0], street[399]])
        #expect(PathSimplifier.simplify([]) == [])
        #expect(PathSimplifier.simplify([street[0]]) == [street[0]])
        #expect(PathSimplifier.simplify(Array(street.prefix(2))) == Array(street.prefix(2)))
    }
}
