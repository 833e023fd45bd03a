import Foundation

/// Douglas-Peucker simplification of a path, so a long trip stays small in storage and on the wire.
///
/// Points are projected onto a local plane (equirectangular around the path's first point), which is accurate to
/// well under a metre over the tens of kilometres of a city trip. The default tolerance of 5 m is about the
/// accuracy HyperTrack reports for a phone's GPS fix (the emulator sends `accuracy: 5`): detail finer than that is
/// noise, and a 20-minute drive sampled every few seconds keeps a few dozen points instead of hundreds.
enum PathSimplifier {
    /// The default tolerance in metres.
    static let defaultTolerance = 5.0

    /// The points of `path` that Douglas-Peucker keeps at `tolerance` metres: always the first and the last, and
    /// every point that lies farther than `tolerance` from the chord of the span it splits.
    /// - Parameters:
    ///   - path: The points, in order.
    ///   - tolerance: The largest distance in metres a dropped point may lie from the simplified path.
    /// - Returns: A subsequence of `path`.
    static func simplify(_ path: [TripPoint], tolerance: Double = defaultTolerance) -> [TripPoint] {
        guard path.count > 2 else { return path }
        let origin = path[0]
        let metresPerDegreeLatitude = Earth.radius * .pi / 180
        let metresPerDegreeLongitude = metresPerDegreeLatitude * cos(origin.latitude * .pi / 180)
        let xy = path.map {
            (
                x: ($0.longitude - origin.longitude) * metresPerDegreeLongitude,
                y: ($0.latitude - origin.latitude) * metresPerDegreeLatitude
            )
        }
        var keep = [Bool](repeating: false, count: path.count)
        keep[0] = true
        keep[path.count - 1] = true
        // An explicit stack instead of recursion: a path of 100,000 points must not exhaust the stack.
        var spans = [(0, path.count - 1)]
        while let (first, last) = spans.popLast() {
            guard last > first + 1 else { continue }
            var farthest = first
            var farthestDistance = -1.0
            for index in (first + 1)..<last {
                let distance = Self.distance(xy[index], from: xy[first], to: xy[last])
                if distance > farthestDistance {
                    farthestDistance = distance
                    farthest = index
                }
            }
            if farthestDistance > tolerance {
                keep[farthest] = true
                spans.append((first, farthest))
                spans.append((farthest, last))
            }
        }
        return path.indices.filter { keep[$0] }.map { path[$0] }
    }

    /// The distance of `p` from the segment `a`–`b` (from `a` itself when the segment is a point).
    private static func distance(
        _ p: (x: Double, y: Double),
        from a: (x: Double, y: Double),
        to b: (x: Double, y: Double)
    ) -> Double {
        let dx = b.x - a.x
        let dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        guard lengthSquared > 0 else { return hypot(p.x - a.x, p.y - a.y) }
        let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared))
        return hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
    }
}
