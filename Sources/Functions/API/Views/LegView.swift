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
    /// The planned route as `[lng, lat]` pairs.
    public var route: [[Double]]?
    /// When the driver arrived at the destination.
    public var arrivedAt: Date?
    /// Metres travelled, once the trip completed.
    public var distance: Double?
    /// Seconds taken, once the trip completed.
    public var duration: Double?

    private enum CodingKeys: String, CodingKey {
        case leg, status, eta, route, distance, duration
        case tripID = "trip_id"
        case shareURL = "share_url"
        case embedURL = "embed_url"
        case arrivedAt = "arrived_at"
    }
}
