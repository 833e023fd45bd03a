import Foundation

/// The path a driver drives along a ``Route``: its straight streets joined by circular arcs at the corners (a car
/// cannot turn on the spot), each street with its ``RoadClass``.
///
/// Worked in a local plane (metres east and north of the route's start, equirectangular: over a city the error is
/// far below a GPS fix's), so positions and headings along arcs are exact: the bearing a device reports is the
/// tangent of its path and changes at `speed / radius` in corners, as a real car's does.
struct Track: Codable, Equatable, Sendable {
    /// A straight stretch or an arc.
    struct Piece: Codable, Equatable, Sendable {
        /// Metres along the track where it starts.
        var start: Double
        var length: Double
        /// Where it starts, metres east and north of the origin.
        var x: Double
        var y: Double
        /// Heading at its start, radians clockwise from north.
        var heading: Double
        /// Arcs: the radius in metres; `nil` for a straight.
        var radius: Double?
        /// Arcs: the signed turn in radians, positive clockwise (a right turn).
        var turn: Double
        /// The street's class; for an arc, the slower of the two streets it joins.
        var roadClass: RoadClass

        var isArc: Bool { radius != nil }
        var end: Double { start + length }
    }

    var origin: Coordinate
    var pieces: [Piece]

    var length: Double { pieces.last?.end ?? 0 }

    /// The track of a route: corners where its direction changes by half a degree or more, each rounded with
    /// ``DrivingLimits/cornerRadius`` (smaller where the streets around it are short: an arc takes at most 45% of
    /// either street).
    init(route: Route) {
        let origin = route.start
        self.origin = origin
        self.pieces = []
        let lat0 = origin.latitude * .pi / 180
        func local(_ c: Coordinate) -> (x: Double, y: Double) {
            (
                (c.longitude - origin.longitude) * .pi / 180 * Geo.earthRadius * cos(lat0),
                (c.latitude - origin.latitude) * .pi / 180 * Geo.earthRadius
            )
        }
        // Corners: drop repeated points and points on a straight line (the route's densified points).
        var corners: [Coordinate] = []
        for point in route.points {
            if let last = corners.last, Self.distance(local(last), local(point)) < 0.01 { continue }
            if corners.count >= 2 {
                let a = local(corners[corners.count - 2])
                let b = local(corners[corners.count - 1])
                let c = local(point)
                let turn = Self.normalized(Self.heading(b, c) - Self.heading(a, b))
                if abs(turn) < 0.5 * .pi / 180 { corners.removeLast() }
            }
            corners.append(point)
        }
        guard corners.count >= 2 else { return }
        let points = corners.map(local)
        let streets = corners.indices.dropLast().map { index in
            (
                heading: Self.heading(points[index], points[index + 1]),
                length: Self.distance(points[index], points[index + 1]),
                roadClass: RoadClass.of(street: corners[index], corners[index + 1])
            )
        }
        // The tangent length cut from the streets at each corner (0 at the two ends).
        var cuts = Array(repeating: 0.0, count: points.count)
        var turns = Array(repeating: 0.0, count: points.count)
        for index in points.indices.dropFirst().dropLast() {
            let turn = Self.normalized(streets[index].heading - streets[index - 1].heading)
            turns[index] = turn
            let half = tan(abs(turn) / 2)
            cuts[index] = min(
                DrivingLimits.cornerRadius * half,
                0.45 * streets[index - 1].length,
                0.45 * streets[index].length
            )
        }
        var travelled = 0.0
        for (index, street) in streets.enumerated() {
            let from = points[index]
            let straight = street.length - cuts[index] - cuts[index + 1]
            let x = from.x + cuts[index] * sin(street.heading)
            let y = from.y + cuts[index] * cos(street.heading)
            pieces.append(
                Piece(
                    start: travelled,
                    length: straight,
                    x: x,
                    y: y,
                    heading: street.heading,
                    radius: nil,
                    turn: 0,
                    roadClass: street.roadClass
                )
            )
            travelled += straight
            let corner = index + 1
            guard corner < points.count - 1 else { continue }
            let turn = turns[corner]
            let radius = cuts[corner] / tan(abs(turn) / 2)
            let next = streets[corner].roadClass
            pieces.append(
                Piece(
                    start: travelled,
                    length: radius * abs(turn),
                    x: x + straight * sin(street.heading),
                    y: y + straight * cos(street.heading),
                    heading: street.heading,
                    radius: radius,
                    turn: turn,
                    roadClass: next.limit < street.roadClass.limit ? next : street.roadClass
                )
            )
            travelled += radius * abs(turn)
        }
    }

    /// The piece at `distance` metres (the last one past the end).
    func pieceIndex(at distance: Double) -> Int {
        var low = 0
        var high = pieces.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if pieces[middle].start <= distance { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Position and heading (radians clockwise from north) after `distance` metres, clamped to the track.
    func pose(at distance: Double) -> (x: Double, y: Double, heading: Double) {
        guard !pieces.isEmpty else { return (0, 0, 0) }
        let piece = pieces[pieceIndex(at: distance)]
        let d = min(max(0, distance - piece.start), piece.length)
        guard let radius = piece.radius else {
            return (piece.x + d * sin(piece.heading), piece.y + d * cos(piece.heading), piece.heading)
        }
        let side: Double = piece.turn >= 0 ? 1 : -1
        let heading = piece.heading + side * d / radius
        let centreX = piece.x + radius * sin(piece.heading + side * .pi / 2)
        let centreY = piece.y + radius * cos(piece.heading + side * .pi / 2)
        return (
            centreX - radius * sin(heading + side * .pi / 2), centreY - radius * cos(heading + side * .pi / 2),
            heading
        )
    }

    /// The position after `distance` metres.
    func position(at distance: Double) -> Coordinate {
        let pose = pose(at: distance)
        return Geo.offset(origin, north: pose.y, east: pose.x)
    }

    /// The heading after `distance` metres, degrees clockwise from north in [0, 360).
    func bearing(at distance: Double) -> Double {
        let degrees = pose(at: distance).heading * 180 / .pi
        let wrapped = degrees.truncatingRemainder(dividingBy: 360)
        return wrapped < 0 ? wrapped + 360 : wrapped
    }

    /// The posted limit in km/h after `distance` metres.
    func limit(at distance: Double) -> Double {
        pieces.isEmpty ? RoadClass.urban.limit : pieces[pieceIndex(at: distance)].roadClass.limit
    }

    static func heading(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        atan2(b.x - a.x, b.y - a.y)
    }

    static func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
    }

    /// An angle in (−π, π].
    static func normalized(_ angle: Double) -> Double {
        var value = angle.truncatingRemainder(dividingBy: 2 * .pi)
        if value > .pi { value -= 2 * .pi }
        if value <= -.pi { value += 2 * .pi }
        return value
    }
}
