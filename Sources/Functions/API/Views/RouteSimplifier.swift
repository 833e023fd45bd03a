import Foundation

/// Thins a `[lng, lat]` polyline to a bounded number of points for order responses, keeping its shape.
///
/// Why: the emulator's (and HyperTrack's) planned route of a 4 km ride has a point every few metres; inlined in every
/// order and order list it made one response 2.57 MB (issue 18). The order views carry at most ``maximumPoints``
/// points (under 2 kB of JSON per leg, enough to draw the line on a phone's map), and the full polyline is
/// `GET /v1/orders/{id}/route`.
///
/// The method is Ramer–Douglas–Peucker run best-first: starting from the two ends, it repeatedly adds the point
/// farthest from the simplified line until the budget is spent or every remaining point lies on it, so the
/// result is the same shape a tolerance-based Douglas–Peucker gives, with a size bound instead of a tolerance.
enum RouteSimplifier {
    /// The most points one leg's route has in an order view.
    static let maximumPoints = 50

    /// `points` thinned to at most `maximum` points; the first and last point are always kept, and a route of at
    /// most `maximum` points (or with malformed points) is returned as it is.
    static func simplify(_ points: [[Double]], maximum: Int = Self.maximumPoints) -> [[Double]] {
        guard points.count > maximum, maximum >= 2, points.allSatisfy({ $0.count >= 2 }) else { return points }
        // Flatten longitude by the cosine of the latitude, so a deviation east-west counts as much as north-south.
        let scale = cos(points[0][1] * .pi / 180)
        let xy = points.map { (x: $0[0] * scale, y: $0[1]) }
        var kept: Set<Int> = [0, points.count - 1]
        var spans = [Self.span(0, points.count - 1, xy)].compactMap { $0 }
        while kept.count < maximum, let best = spans.indices.max(by: { spans[$0].distance < spans[$1].distance }) {
            let span = spans.remove(at: best)
            kept.insert(span.farthest)
            spans += [Self.span(span.start, span.farthest, xy), Self.span(span.farthest, span.end, xy)].compactMap {
                $0
            }
        }
        return kept.sorted().map { points[$0] }
    }

    private struct Span {
        var start: Int
        var end: Int
        var farthest: Int
        var distance: Double
    }

    /// The point strictly between `start` and `end` farthest from the chord between them; `nil` when none is off it.
    private static func span(_ start: Int, _ end: Int, _ xy: [(x: Double, y: Double)]) -> Span? {
        guard end - start > 1 else { return nil }
        let (a, b) = (xy[start], xy[end])
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let length = (dx * dx + dy * dy).squareRoot()
        var best = Span(start: start, end: end, farthest: start + 1, distance: -1)
        for index in (start + 1)..<end {
            let p = xy[index]
            let distance =
                length == 0
                ? ((p.x - a.x) * (p.x - a.x) + (p.y - a.y) * (p.y - a.y)).squareRoot()
                : abs(dy * (p.x - a.x) - dx * (p.y - a.y)) / length
            if distance > best.distance { best = Span(start: start, end: end, farthest: index, distance: distance) }
        }
        return best.distance > 0 ? best : nil
    }
}
