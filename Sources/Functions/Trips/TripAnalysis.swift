import Foundation

/// What is stored for a drive when it ends: its length, its simplified path, its events and its rating. Computed
/// once by `analyzeTrip`, never on read.
struct TripAnalysis: Sendable, Hashable {
    /// Metres along the full (unsimplified) path.
    var distance: Double
    /// The path simplified with Douglas-Peucker (``PathSimplifier``).
    var path: [TripPoint]
    /// The detected events.
    var events: [DrivingEvent]
    /// Score and stars.
    var rating: DrivingScore
    /// How many locations the drive had.
    var pointCount: Int

    /// Analyses a drive.
    /// - Parameters:
    ///   - points: The drive's locations, in any order.
    ///   - postedLimit: The posted limit in km/h at a point (see `Backend.Configuration.Trips.speedLimit`).
    ///   - tolerance: Douglas-Peucker tolerance in metres.
    init(
        points: [TripPoint],
        postedLimit: @escaping @Sendable (TripPoint) -> Double?,
        tolerance: Double = PathSimplifier.defaultTolerance
    ) {
        let prepared = DrivingEventDetector.prepared(points)
        self.distance = Earth.length(prepared)
        self.path = PathSimplifier.simplify(prepared, tolerance: tolerance)
        self.events = DrivingEventDetector(postedLimit: postedLimit).events(in: prepared)
        self.rating = DrivingScore(events: self.events, distance: self.distance, rated: prepared.count >= 2)
        self.pointCount = prepared.count
    }
}
