import Foundation
import HyperTrackAPI

/// An `orders` row (`to_jsonb(row)`): what the trigger functions receive, what the stores read, and what the API's
/// ``OrderView`` is built from. The one decoding of an order.
public struct OrderRow: Sendable, Hashable, Codable {
    /// The order's id.
    public var id: UUID
    /// Its status.
    public var status: OrderStatus
    /// The rider who booked it.
    public var riderID: UUID
    /// The driver who accepted it, once one has.
    public var driverID: UUID?
    /// Where the rider waits.
    public var pickup: Place
    /// Where the rider goes.
    public var dropoff: Place
    /// Why it was cancelled, when it was.
    public var cancellationReason: String?
    /// The reason of an order that dispatch cancelled because nobody accepted it within the dispatch window.
    public static let noDriverFound = "no_driver_found"
    /// Distances, durations and fare, once the ride's summary arrived.
    public var summary: OrderSummary?
    /// When it was booked (set by the database).
    public var createdAt: Date?
    /// When it last changed (set by the database).
    public var updatedAt: Date?

    /// A point with an optional address.
    public struct Place: Sendable, Hashable {
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double
        /// A human-readable address, when the app sent one.
        public var address: String?

        /// Creates a place.
        public init(latitude: Double, longitude: Double, address: String? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.address = address
        }

        /// The place as a HyperTrack coordinate.
        public var coordinate: Coordinate { Coordinate(latitude: self.latitude, longitude: self.longitude) }
    }

    /// Creates an order row.
    public init(
        id: UUID,
        status: OrderStatus,
        riderID: UUID,
        driverID: UUID? = nil,
        pickup: Place,
        dropoff: Place,
        cancellationReason: String? = nil,
        summary: OrderSummary? = nil,
        createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.status = status
        self.riderID = riderID
        self.driverID = driverID
        self.pickup = pickup
        self.dropoff = dropoff
        self.cancellationReason = cancellationReason
        self.summary = summary
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, status, summary
        case riderID = "rider_id"
        case driverID = "driver_id"
        case pickupLatitude = "pickup_lat"
        case pickupLongitude = "pickup_lng"
        case pickupAddress = "pickup_address"
        case dropoffLatitude = "dropoff_lat"
        case dropoffLongitude = "dropoff_lng"
        case dropoffAddress = "dropoff_address"
        case cancellationReason = "cancellation_reason"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(UUID.self, forKey: .id)
        self.status = try container.decode(OrderStatus.self, forKey: .status)
        self.riderID = try container.decode(UUID.self, forKey: .riderID)
        self.driverID = try container.decodeIfPresent(UUID.self, forKey: .driverID)
        self.pickup = Place(
            latitude: try container.decode(Double.self, forKey: .pickupLatitude),
            longitude: try container.decode(Double.self, forKey: .pickupLongitude),
            address: try container.decodeIfPresent(String.self, forKey: .pickupAddress)
        )
        self.dropoff = Place(
            latitude: try container.decode(Double.self, forKey: .dropoffLatitude),
            longitude: try container.decode(Double.self, forKey: .dropoffLongitude),
            address: try container.decodeIfPresent(String.self, forKey: .dropoffAddress)
        )
        self.cancellationReason = try container.decodeIfPresent(String.self, forKey: .cancellationReason)
        self.summary = try container.decodeIfPresent(OrderSummary.self, forKey: .summary)
        self.createdAt = try container.decodeIfPresent(Date.self, forKey: .createdAt)
        self.updatedAt = try container.decodeIfPresent(Date.self, forKey: .updatedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id, forKey: .id)
        try container.encode(self.status, forKey: .status)
        try container.encode(self.riderID, forKey: .riderID)
        try container.encodeIfPresent(self.driverID, forKey: .driverID)
        try container.encode(self.pickup.latitude, forKey: .pickupLatitude)
        try container.encode(self.pickup.longitude, forKey: .pickupLongitude)
        try container.encodeIfPresent(self.pickup.address, forKey: .pickupAddress)
        try container.encode(self.dropoff.latitude, forKey: .dropoffLatitude)
        try container.encode(self.dropoff.longitude, forKey: .dropoffLongitude)
        try container.encodeIfPresent(self.dropoff.address, forKey: .dropoffAddress)
        try container.encodeIfPresent(self.cancellationReason, forKey: .cancellationReason)
        try container.encodeIfPresent(self.summary, forKey: .summary)
        try container.encodeIfPresent(self.createdAt, forKey: .createdAt)
        try container.encodeIfPresent(self.updatedAt, forKey: .updatedAt)
    }
}
