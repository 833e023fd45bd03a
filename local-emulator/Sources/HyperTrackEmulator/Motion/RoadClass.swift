/// The kind of street a stretch of a route is, and so its posted speed limit.
///
/// The emulator has no road map: each street of a planned route (the stretch between two corners) gets a class from
/// a hash of its end points, so the same route always has the same limits. One street in four is residential, two
/// urban, one arterial. The limits are German towns' (StVO §3: 50 inside towns, 30 in residential zones, 70 where
/// signed on arterials), where the reference rides run.
enum RoadClass: String, Codable, Sendable, CaseIterable {
    case residential
    case urban
    case arterial

    /// The posted limit in km/h.
    var limit: Double {
        switch self {
        case .residential: 30
        case .urban: 50
        case .arterial: 70
        }
    }

    /// The class of the street from `a` to `b`.
    static func of(street a: Coordinate, _ b: Coordinate) -> RoadClass {
        let key =
            "\(Geo.round6(a.longitude)),\(Geo.round6(a.latitude))->\(Geo.round6(b.longitude)),\(Geo.round6(b.latitude))"
        let classes: [RoadClass] = [.residential, .urban, .urban, .arterial]
        return classes[Int(StableHash.fnv1a(key) % UInt64(classes.count))]
    }
}
