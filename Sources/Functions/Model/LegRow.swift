import Foundation

/// An `order_legs` row: one leg of an order and its HyperTrack trip.
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

    /// Creates a leg row.
    public init(id: UUID, orderID: UUID, leg: LegKind, deviceID: String, tripID: String, status: LegStatus) {
        self.id = id
        self.orderID = orderID
        self.leg = leg
        self.deviceID = deviceID
        self.tripID = tripID
        self.status = status
    }

    private enum CodingKeys: String, CodingKey {
        case id, leg, status
        case orderID = "order_id"
        case deviceID = "device_id"
        case tripID = "trip_id"
    }
}
