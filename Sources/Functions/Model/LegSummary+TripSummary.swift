import HyperTrackAPI

extension LegSummary {
    /// A leg summary from a HyperTrack trip summary (missing numbers count as 0).
    /// - Parameter summary: The trip's summary.
    public init(_ summary: TripSummary) {
        self.init(
            distance: summary.distance ?? 0,
            duration: summary.duration ?? 0,
            route: summary.locations.map { [$0.coordinate.longitude, $0.coordinate.latitude] }
        )
    }
}
