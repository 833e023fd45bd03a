import Foundation

/// A device driving along a route on behalf of a trip: from rest (or the speed it rolled in with) to a stop at the
/// route's end, with the realistic limits of ``DrivingLimits`` and the manoeuvres injected through the control API.
///
/// The whole drive is planned when it starts (and again when a manoeuvre is added, from then on only): the
/// ``Track`` (streets and corner arcs) and the ``SpeedPlan`` (phases of constant acceleration). Each street is
/// driven at 90% of its posted limit, capped by the configured speed; each corner at the speed that keeps the side
/// acceleration at 2.5 m/s²; the driver accelerates at 1.5 m/s² and brakes at 2 m/s².
struct Motion: Codable, Equatable, Sendable {
    var tripID: String
    var route: Route
    var startedAt: Date
    /// The highest cruise speed, m/s (the configured speed).
    var speed: Double
    /// The speed the drive started with, m/s: 0 from rest, more when the driver rolls on from the previous drive.
    var initialSpeed: Double
    /// Manoeuvres injected through the control API, in time order; `nil` when none.
    var maneuvers: [Maneuver]?
    var track: Track
    var plan: SpeedPlan

    /// Plans a drive. `initialSpeed` is lowered where it is too fast for what is ahead (a corner right away).
    init(tripID: String, route: Route, startedAt: Date, speed: Double, initialSpeed: Double = 0) {
        self.tripID = tripID
        self.route = route
        self.startedAt = startedAt
        self.speed = speed
        self.maneuvers = nil
        self.track = Track(route: route)
        let zones = Self.zones(track, speed: speed)
        var start = min(initialSpeed, zones.first?.cap ?? 0)
        var phases = SpeedPlan.drive(zones: zones, from: 0, speed: start, at: 0)
        while phases == nil, start > 0 {
            start = start > 0.5 ? start / 2 : 0
            phases = SpeedPlan.drive(zones: zones, from: 0, speed: start, at: 0)
        }
        self.initialSpeed = start
        self.plan = SpeedPlan(phases: phases ?? [], length: track.length)
    }

    /// The speed caps of a track: 90% of each street's limit (at most `speed`), and in corners the speed whose
    /// side acceleration `v² / r` is ``DrivingLimits/lateral``.
    static func zones(_ track: Track, speed: Double) -> [SpeedZone] {
        track.pieces.map { piece in
            let cruise = min(speed, piece.roadClass.limit / 3.6 * DrivingLimits.limitShare)
            guard let radius = piece.radius else { return SpeedZone(start: piece.start, end: piece.end, cap: cruise) }
            let corner = max(DrivingLimits.slowestCorner, (DrivingLimits.lateral * radius).squareRoot())
            return SpeedZone(start: piece.start, end: piece.end, cap: min(cruise, corner))
        }
    }

    /// The plan of this drive with `maneuvers` (each applied from its time on); `nil` when one cannot be driven.
    func replanned(with maneuvers: [Maneuver]) -> SpeedPlan? {
        var zones = Self.zones(track, speed: speed)
        guard let phases = SpeedPlan.drive(zones: zones, from: 0, speed: initialSpeed, at: 0) else { return nil }
        var plan = SpeedPlan(phases: phases, length: track.length)
        for maneuver in maneuvers.sorted(by: { $0.at < $1.at }) {
            guard let next = maneuver.apply(to: plan, zones: &zones, track: track) else { return nil }
            plan = next
        }
        return plan
    }

    func elapsed(_ time: Date) -> Double { max(0, time.timeIntervalSince(startedAt)) }

    func travelled(at time: Date) -> Double { plan.state(at: elapsed(time)).distance }

    /// The speed at `time`, m/s.
    func speed(at time: Date) -> Double { plan.state(at: elapsed(time)).speed }

    func isFinished(at time: Date) -> Bool { elapsed(time) >= plan.duration }

    /// The instants strictly between `from` and `to` at which the device reports every second around a
    /// manoeuvre (whole seconds of the drive).
    func denseSamples(after from: Date, before to: Date) -> [Date] {
        let low = elapsed(from)
        let high = min(to.timeIntervalSince(startedAt), plan.duration)
        var seconds = Set<Int>()
        for window in plan.dense where window.count == 2 {
            let first = Int(max(window[0], low).rounded(.down))
            let last = Int(min(window[1], high).rounded(.up))
            guard first <= last else { continue }
            for second in first...last {
                let value = Double(second)
                if value > low, value < high, value >= window[0], value <= window[1] { seconds.insert(second) }
            }
        }
        return seconds.sorted().map { startedAt.addingTimeInterval(Double($0)) }
    }

    private enum CodingKeys: String, CodingKey {
        case tripID, route, startedAt, speed, initialSpeed, maneuvers, track, plan
    }

    /// Decodes a motion; one exported before drives were planned (no track or plan) is planned again from its
    /// start, with its manoeuvres where they still fit.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tripID = try container.decode(String.self, forKey: .tripID)
        route = try container.decode(Route.self, forKey: .route)
        startedAt = try container.decode(Date.self, forKey: .startedAt)
        speed = try container.decode(Double.self, forKey: .speed)
        initialSpeed = try container.decodeIfPresent(Double.self, forKey: .initialSpeed) ?? 0
        maneuvers = try container.decodeIfPresent([Maneuver].self, forKey: .maneuvers)
        if let track = try container.decodeIfPresent(Track.self, forKey: .track),
            let plan = try container.decodeIfPresent(SpeedPlan.self, forKey: .plan)
        {
            self.track = track
            self.plan = plan
        } else {
            let fresh = Motion(tripID: tripID, route: route, startedAt: startedAt, speed: speed)
            self.track = fresh.track
            if let replanned = fresh.replanned(with: maneuvers ?? []) {
                self.plan = replanned
            } else {
                self.plan = fresh.plan
                maneuvers = nil
            }
        }
    }
}
