import Foundation

/// One leg of an order: its trip, share link, ETA and route, and what was recorded at the end.
public struct LegView: Codable, Sendable, Hashable {
    /// Pickup or dropoff.
    public var leg: LegKind
    /// The status.
    public var status: LegStatus
    /// The HyperTrack trip.
    public var tripID: String
    /// The public tracking link to share.
    public var shareURL: String?
    /// The embeddable tracking view.
    public var embedURL: String?
    /// Expected arrival at the destination.
    public var eta: Date?
    /// The planned route as `[lng, lat]` pairs, simplified to at most 50 points (``RouteSimplifier``); the full
    /// polyline is `GET /v1/orders/{id}/route`.
    public var route: [[Double]]?
    /// The full planned route, for `GET /v1/orders/{id}/route` (never encoded in an order).
    var plannedRoute: [[Double]]? = nil
    /// When the driver arrived at the destination.
    public var arrivedAt: Date?
    /// Metres travelled, once the trip completed.
    public var distance: Double?
    /// Seconds taken, once the trip completed.
    public var duration: Double?

    /// The view of a leg row: the planned route is the estimate's.
    /// - Parameter row: The `order_legs` row.
    init(row: LegRow) {
        self.leg = row.leg
        self.status = row.status
        self.tripID = row.tripID
        self.shareURL = row.shareURL
        self.embedURL = row.embedURL
        self.eta = row.eta
        self.route = row.estimateRoute.map { RouteSimplifier.simplify($0) }
        self.plannedRoute = row.estimateRoute
        self.arrivedAt = row.arrivedAt
        self.distance = row.distance
        self.duration = row.duration
    }

    private enum CodingKeys: String, CodingKey {
        case leg, status, eta, route, distance, duration
        case tripID = "trip_id"
        case shareURL = "share_url"
        case embedURL = "embed_url"
        case arrivedAt = "arrived_at"
    }
}
