import Foundation

/// Finds driving events in a drive's locations: pure, so it is unit tested on synthetic paths.
///
/// Speeds are the device's own (HyperTrack's `location` events carry `speed`, measured by the phone from Doppler,
/// far steadier than speeds derived from positions); a point without one gets the speed derived from the previous
/// point. Bearings likewise: the device's, else the course between points.
///
/// - Longitudinal: for each pair of consecutive points at most ``Thresholds-swift.struct/maximumGap`` apart,
///   `a = Δv / Δt`. A run of consecutive pairs at or beyond a threshold is one event, counted only if the speed
///   changed by at least ``Thresholds-swift.struct/minimumSpeedChange`` over the run: with points a fraction of a
///   second apart, a jitter of a few tenths of m/s would otherwise cross the threshold.
/// - Lateral: `a = v · |Δθ| / Δt` (speed times yaw rate), counted only at ``Thresholds-swift.struct/minimumTurnSpeed``
///   or faster (below it a bearing is mostly noise: a phone standing still reports any heading) and only if the run
///   turned by at least ``Thresholds-swift.struct/minimumHeadingChange`` in all.
/// - Speeding: a run of points faster than the posted limit plus ``Thresholds-swift.struct/speedingMargin`` that
///   lasts at least ``Thresholds-swift.struct/minimumSpeedingDuration``.
struct DrivingEventDetector: Sendable {
    /// The detector's thresholds; each default says where it comes from.
    struct Thresholds: Sendable, Hashable {
        /// Rapid acceleration at or above 2.5 m/s² (≈ 0.25 g). A brisk start from a light is 1.5–2 m/s²; an average
        /// car at full throttle, 0–100 km/h in about 10 s, averages 2.8 m/s². Telematics programs put "harsh" at
        /// roughly a quarter to a third of g.
        var rapidAcceleration = 2.5
        /// Hard braking at or beyond −3.0 m/s² (≈ 0.3 g). An ordinary stop at a light is 1–2 m/s²; 3 m/s² is
        /// a stop you feel in the belt, and is the usual order of "harsh braking" in telematics programs.
        var hardBraking = 3.0
        /// Hard turns at or above 4.0 m/s² lateral (≈ 0.4 g). Road design assumes 1–2 m/s² of side
        /// acceleration for comfortable curves; 4 m/s² makes loose objects slide.
        var hardTurn = 4.0
        /// Speed change a longitudinal event must reach, 2 m/s (7.2 km/h): more than a phone's speed jitter.
        var minimumSpeedChange = 2.0
        /// Lateral events count only at 5 m/s (18 km/h) or faster.
        var minimumTurnSpeed = 5.0
        /// A hard turn must turn by 15° at least in all.
        var minimumHeadingChange = 15.0
        /// Points farther apart than 10 s are not compared: a gap hides what happened between them.
        var maximumGap: TimeInterval = 10
        /// Speeding counts above the limit plus 5 km/h: more than GPS speed error (≈ 2 km/h) and more than the
        /// 3 km/h a German speed camera deducts as its tolerance, so each event is an unambiguous excess.
        var speedingMargin = 5.0
        /// Speeding must last 5 s at least, so one jittery sample is not an event.
        var minimumSpeedingDuration: TimeInterval = 5
    }

    /// The thresholds.
    var thresholds = Thresholds()
    /// The posted limit in km/h at a point; `nil` where none is known (no speeding can be detected there).
    var postedLimit: @Sendable (TripPoint) -> Double?

    /// The events of a drive, in the order they started.
    /// - Parameter points: The drive's locations; sorted by time here.
    func events(in points: [TripPoint]) -> [DrivingEvent] {
        let path = Self.prepared(points)
        guard path.count >= 2 else { return [] }
        let events = self.longitudinal(path) + self.lateral(path) + self.speeding(path)
        return events.sorted { ($0.start.time, $0.kind.rawValue) < ($1.start.time, $1.kind.rawValue) }
    }

    /// Sorted by time, one point per instant, every point with a speed and a bearing.
    static func prepared(_ points: [TripPoint]) -> [TripPoint] {
        var path: [TripPoint] = []
        for point in points.sorted(by: { $0.time < $1.time }) where path.last?.time != point.time {
            var point = point
            if let previous = path.last {
                let dt = point.time.timeIntervalSince(previous.time)
                let moved = Earth.distance(previous, point)
                if point.speed == nil { point.speed = moved / dt }
                if point.bearing == nil {
                    point.bearing = moved >= 2 ? Earth.bearing(previous, point) : previous.bearing
                }
            }
            path.append(point)
        }
        if path.count >= 2 {
            if path[0].speed == nil { path[0].speed = path[1].speed }
            if path[0].bearing == nil { path[0].bearing = path[1].bearing }
        }
        return path
    }

    private func longitudinal(_ path: [TripPoint]) -> [DrivingEvent] {
        let t = self.thresholds
        return self.runs(path) { a, b, dt in
            let acceleration = ((b.speed ?? 0) - (a.speed ?? 0)) / dt
            if acceleration >= t.rapidAcceleration { return (.rapidAcceleration, acceleration) }
            if acceleration <= -t.hardBraking { return (.hardBraking, acceleration) }
            return nil
        }
        .filter { abs(($0.end.speed ?? 0) - ($0.start.speed ?? 0)) >= t.minimumSpeedChange }
    }

    private func lateral(_ path: [TripPoint]) -> [DrivingEvent] {
        let t = self.thresholds
        return self.runs(path) { a, b, dt in
            let speed = ((a.speed ?? 0) + (b.speed ?? 0)) / 2
            guard speed >= t.minimumTurnSpeed, let from = a.bearing, let to = b.bearing else { return nil }
            let lateral = speed * abs(Self.turn(from, to)) * .pi / 180 / dt
            return lateral >= t.hardTurn ? (.hardTurn, lateral) : nil
        }
        .filter { self.totalTurn(path, $0) >= t.minimumHeadingChange }
    }

    /// The heading change summed over the points of an event (a long turn may come back near its start bearing).
    private func totalTurn(_ path: [TripPoint], _ event: DrivingEvent) -> Double {
        let inside = path.filter { $0.time >= event.start.time && $0.time <= event.end.time }
        return abs(zip(inside, inside.dropFirst()).reduce(0) { $0 + Self.turn($1.0.bearing ?? 0, $1.1.bearing ?? 0) })
    }

    /// Runs of consecutive point pairs that `classify` gives the same kind; each run is one event with its peak.
    private func runs(
        _ path: [TripPoint],
        classify: (TripPoint, TripPoint, TimeInterval) -> (DrivingCategory, Double)?
    ) -> [DrivingEvent] {
        var events: [DrivingEvent] = []
        var current: DrivingEvent?
        for (a, b) in zip(path, path.dropFirst()) {
            let dt = b.time.timeIntervalSince(a.time)
            let found = dt <= self.thresholds.maximumGap ? classify(a, b, dt) : nil
            if let (kind, value) = found, var event = current, event.kind == kind, event.end == a {
                event.end = b
                if abs(value) > abs(event.peakAcceleration ?? 0) { event.peakAcceleration = value }
                current = event
                continue
            }
            if let event = current { events.append(event) }
            current = found.map { DrivingEvent(kind: $0.0, start: a, end: b, peakAcceleration: $0.1) }
        }
        if let event = current { events.append(event) }
        return events
    }

    private func speeding(_ path: [TripPoint]) -> [DrivingEvent] {
        var events: [DrivingEvent] = []
        var run: [(point: TripPoint, limit: Double)] = []
        func close() {
            defer { run = [] }
            guard let first = run.first, let last = run.last,
                last.point.time.timeIntervalSince(first.point.time) >= self.thresholds.minimumSpeedingDuration
            else { return }
            let speeds = run.map { ($0.point.speed ?? 0) * 3.6 }
            events.append(
                DrivingEvent(
                    kind: .speeding,
                    start: first.point,
                    end: last.point,
                    postedLimit: first.limit,
                    maximumSpeed: speeds.max(),
                    averageSpeed: speeds.reduce(0, +) / Double(speeds.count)
                )
            )
        }
        for point in path {
            let limit = self.postedLimit(point)
            let over = limit.map { (point.speed ?? 0) * 3.6 > $0 + self.thresholds.speedingMargin } ?? false
            let gap = run.last.map { point.time.timeIntervalSince($0.point.time) > self.thresholds.maximumGap } ?? false
            if !over || gap || run.last.map({ $0.limit != limit }) == true { close() }
            if over, let limit { run.append((point, limit)) }
        }
        close()
        return events
    }

    /// The signed smallest turn from bearing `a` to bearing `b`, in degrees (−180, 180].
    static func turn(_ a: Double, _ b: Double) -> Double {
        var delta = (b - a).truncatingRemainder(dividingBy: 360)
        if delta > 180 { delta -= 360 }
        if delta <= -180 { delta += 360 }
        return delta
    }
}
