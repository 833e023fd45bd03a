import Foundation

/// An `order_legs` row (`to_jsonb(row)`): one leg of an order and its HyperTrack trip. What `completeTrip`
/// receives, what the stores read, and what ``LegRecord`` and the API's ``LegView`` are built from.
public struct LegRow: Sendable, Hashable, Codable {
    /// The leg's id (the document key of `completeTrip`).
    public var id: UUID
    /// The order it belongs to (kept after the order is deleted, so its trip can still be completed).
    public var orderID: UUID
    /// Pickup or dropoff.
    public var leg: LegKind
    /// The driver's device.
    public var deviceID: String
    /// The HyperTrack trip.
    public var tripID: String
    /// The trip's status as we track it.
    public var status: LegStatus
    /// The public tracking link, when HyperTrack returned one.
    public var shareURL: String?
    /// The embeddable tracking view.
    public var embedURL: String?
    /// The estimated arrival at the destination.
    public var eta: Date?
    /// The estimated route as `[lng, lat]` pairs.
    public var estimateRoute: [[Double]]?
    /// When the device arrived at the destination.
    public var arrivedAt: Date?
    /// Metres travelled, once the trip's summary arrived.
    public var distance: Double?
    /// Seconds taken, once the trip's summary arrived.
    public var duration: Double?
    /// The travelled route as `[lng, lat]` pairs, once the trip's summary arrived.
    public var route: [[Double]]?

    /// Creates a leg row.
    public init(
        id: UUID,
        orderID: UUID,
        leg: LegKind,
        deviceID: String,
        tripID: String,
        status: LegStatus,
        shareURL: String? = nil,
        embedURL: String? = nil,
        eta: Date? = nil,
        estimateRoute: [[Double]]? = nil,
        arrivedAt: Date? = nil,
        distance: Double? = nil,
        duration: Double? = nil,
        route: [[Double]]? = nil
    ) {
        self.id = id
        self.orderID = orderID
        self.leg = leg
        self.deviceID = deviceID
        self.tripID = tripID
        self.status = status
        self.shareURL = shareURL
        self.embedURL = embedURL
        self.eta = eta
        self.estimateRoute = estimateRoute
        self.arrivedAt = arrivedAt
        self.distance = distance
        self.duration = duration
        self.route = route
    }

    /// The trip's summary, once its distance and duration are recorded.
    public var summary: LegSummary? {
        guard let distance = self.distance, let duration = self.duration else { return nil }
        return LegSummary(distance: distance, duration: duration, route: self.route ?? [])
    }

    private enum CodingKeys: String, CodingKey {
        case id, leg, status, eta, distance, duration, route
        case orderID = "order_id"
        case deviceID = "device_id"
        case tripID = "trip_id"
        case shareURL = "share_url"
        case embedURL = "embed_url"
        case estimateRoute = "estimate_route"
        case arrivedAt = "arrived_at"
    }
}
