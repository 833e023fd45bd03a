/// A driving route: a polyline with cumulative distances, planned deterministically from its end points.
struct Route: Codable, Equatable, Sendable {
    private(set) var points: [Coordinate]
    private(set) var cumulative: [Double]

    var length: Double { cumulative.last ?? 0 }
    var start: Coordinate { points[0] }
    var end: Coordinate { points[points.count - 1] }

    init(points: [Coordinate]) {
        precondition(!points.isEmpty, "a route needs a point")
        self.points = points
        var total = 0.0
        self.cumulative = [0]
        for index in points.indices.dropFirst() {
            total += Geo.distance(points[index - 1], points[index])
            cumulative.append(total)
        }
    }

    /// Plans a "city grid" route: north/south for part of the way, east/west, then north/south again, with the
    /// turn point and a small jog chosen from a hash of the inputs, densified to points at most 200 m apart.
    static func plan(from start: Coordinate, to end: Coordinate, seed: UInt64) -> Route {
        guard Geo.distance(start, end) > 50 else { return Route(points: start == end ? [start] : [start, end]) }
        let key = "\(seed):\(start.longitude),\(start.latitude)->\(end.longitude),\(end.latitude)"
        let hash = StableHash.fnv1a(key)
        let turn = 0.3 + Double(hash % 401) / 1000  // 0.3 ... 0.7
        let jog = (Double((hash >> 12) % 201) / 1000 - 0.1)  // -0.1 ... 0.1 of the east-west leg
        let firstCorner = Coordinate(
            longitude: start.longitude,
            latitude: start.latitude + (end.latitude - start.latitude) * turn
        )
        let midJog = Coordinate(
            longitude: start.longitude + (end.longitude - start.longitude) * 0.5,
            latitude: firstCorner.latitude + (end.latitude - start.latitude) * jog
        )
        let secondCorner = Coordinate(longitude: end.longitude, latitude: midJog.latitude)
        var corners = [start, firstCorner, midJog, secondCorner, end]
        corners = corners.enumerated().filter { index, point in index == 0 || point != corners[index - 1] }.map(\.1)
        var dense: [Coordinate] = [corners[0]]
        for index in corners.indices.dropFirst() {
            let a = corners[index - 1]
            let b = corners[index]
            let pieces = max(1, Int((Geo.distance(a, b) / 200).rounded(.up)))
            for piece in 1...pieces { dense.append(Geo.interpolate(a, b, Double(piece) / Double(pieces))) }
        }
        return Route(points: dense)
    }

    /// The position after travelling `distance` metres along the route (clamped to its ends).
    func position(at distance: Double) -> Coordinate {
        guard distance > 0 else { return start }
        guard distance < length else { return end }
        let index = cumulative.firstIndex { $0 >= distance } ?? points.count - 1
        let segment = cumulative[index] - cumulative[index - 1]
        let fraction = segment > 0 ? (distance - cumulative[index - 1]) / segment : 1
        return Geo.interpolate(points[index - 1], points[index], fraction)
    }

    /// Heading at `distance` metres along the route.
    func bearing(at distance: Double) -> Double {
        guard points.count > 1 else { return 0 }
        let index = min(max(1, cumulative.firstIndex { $0 > distance } ?? points.count - 1), points.count - 1)
        return Geo.bearing(points[index - 1], points[index])
    }

    /// The part of the route still ahead after `distance` metres.
    func remaining(after distance: Double) -> Route {
        guard distance > 0 else { return self }
        guard distance < length else { return Route(points: [end]) }
        let index = cumulative.firstIndex { $0 > distance } ?? points.count - 1
        return Route(points: [position(at: distance)] + points[index...])
    }

    /// GeoJSON `LineString` of the route.
    var lineString: JSON { ["type": "LineString", "coordinates": .array(points.map(\.pair))] }
}
