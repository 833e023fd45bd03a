import Foundation
import Hummingbird

/// A user as the API shows them.
public struct UserView: Codable, Sendable, Hashable, ResponseEncodable {
    /// The identifier.
    public var id: UUID
    /// Rider or driver.
    public var role: UserRole
    /// Display name.
    public var name: String
    /// Phone number.
    public var phone: String
    /// The driver's HyperTrack device.
    public var deviceID: String?
    /// The driver's car.
    public var car: CarView?
    /// Whether a driver takes orders (drivers only).
    public var available: Bool?

    private enum CodingKeys: String, CodingKey {
        case id, role, name, phone, car, available
        case deviceID = "device_id"
    }
}

/// A driver's car.
public struct CarView: Codable, Sendable, Hashable {
    /// Car model.
    public var model: String
    /// Licence plate.
    public var plate: String
}

/// A registration's answer: the user and their bearer token (shown once).
public struct RegistrationView: Codable, Sendable, ResponseEncodable {
    /// The registered user.
    public var user: UserView
    /// The bearer token; shown only here.
    public var token: String
}

/// An order as its rider, its driver, or a driver it is offered to sees it.
public struct OrderView: Codable, Sendable, Hashable, ResponseEncodable {
    /// The identifier.
    public var id: UUID
    /// The status.
    public var status: OrderStatus
    /// The rider who booked.
    public var riderID: UUID
    /// Where the rider is picked up.
    public var pickup: PlaceView
    /// Where the ride ends.
    public var dropoff: PlaceView
    /// The driver, once one accepted.
    public var driver: DriverView?
    /// Why it was cancelled.
    public var cancellationReason: String?
    /// Distances, durations and fare, once the ride is complete.
    public var summary: OrderSummary?
    /// When it was booked.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// Both legs, pickup first.
    public var legs: [LegView]
    /// The leg whose trip is running, if any.
    public var liveLeg: LegView? { self.legs.last { $0.status == .active } }

    private enum CodingKeys: String, CodingKey {
        case id, status, pickup, dropoff, driver, summary, legs
        case riderID = "rider_id"
        case cancellationReason = "cancellation_reason"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case liveLeg = "live_leg"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(UUID.self, forKey: .id)
        self.status = try container.decode(OrderStatus.self, forKey: .status)
        self.riderID = try container.decode(UUID.self, forKey: .riderID)
        self.pickup = try container.decode(PlaceView.self, forKey: .pickup)
        self.dropoff = try container.decode(PlaceView.self, forKey: .dropoff)
        self.driver = try container.decodeIfPresent(DriverView.self, forKey: .driver)
        self.cancellationReason = try container.decodeIfPresent(String.self, forKey: .cancellationReason)
        self.summary = try container.decodeIfPresent(OrderSummary.self, forKey: .summary)
        self.createdAt = try container.decode(Date.self, forKey: .createdAt)
        self.updatedAt = try container.decode(Date.self, forKey: .updatedAt)
        self.legs = try container.decode([LegView].self, forKey: .legs)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id, forKey: .id)
        try container.encode(self.status, forKey: .status)
        try container.encode(self.riderID, forKey: .riderID)
        try container.encode(self.pickup, forKey: .pickup)
        try container.encode(self.dropoff, forKey: .dropoff)
        try container.encodeIfPresent(self.driver, forKey: .driver)
        try container.encodeIfPresent(self.cancellationReason, forKey: .cancellationReason)
        try container.encodeIfPresent(self.summary, forKey: .summary)
        try container.encode(self.createdAt, forKey: .createdAt)
        try container.encode(self.updatedAt, forKey: .updatedAt)
        try container.encode(self.legs, forKey: .legs)
        try container.encodeIfPresent(self.liveLeg, forKey: .liveLeg)
    }
}

/// A point with an optional address.
public struct PlaceView: Codable, Sendable, Hashable {
    /// Degrees north.
    public var lat: Double
    /// Degrees east.
    public var lng: Double
    /// The address, when given.
    public var address: String?
}

/// The driver of an order, with their car.
public struct DriverView: Codable, Sendable, Hashable {
    /// The identifier.
    public var id: UUID
    /// Display name.
    public var name: String
    /// Phone number.
    public var phone: String
    /// The driver's car.
    public var car: CarView
}

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

/// A page of orders, newest first.
public struct OrderPage: Codable, Sendable, ResponseEncodable {
    /// The orders.
    public var orders: [OrderView]
    /// Pass as `cursor` for the next page; `nil` on the last page.
    public var nextCursor: String?

    private enum CodingKeys: String, CodingKey {
        case orders
        case nextCursor = "next_cursor"
    }
}

/// Offers open to a driver.
public struct OfferList: Codable, Sendable, ResponseEncodable {
    /// Orders offered to the driver.
    public var offers: [OrderView]
}

/// A nearby driver on the rider's map: a position only.
public struct NearbyDriverView: Codable, Sendable, Hashable {
    /// Degrees north.
    public var lat: Double
    /// Degrees east.
    public var lng: Double
    /// Metres from the searched point.
    public var distance: Double
}

/// `GET /v1/drivers/nearby`.
public struct NearbyDriverList: Codable, Sendable, ResponseEncodable {
    /// Nearby drivers, nearest first.
    public var drivers: [NearbyDriverView]
}

/// `PUT /v1/drivers/me/availability`.
public struct AvailabilityView: Codable, Sendable, ResponseEncodable {
    /// Whether a driver takes orders (drivers only).
    public var available: Bool
}

/// `/healthz`, `/readyz`, and the webhook receiver's answer.
public struct StatusView: Codable, Sendable, ResponseEncodable {
    /// The status.
    public var status: String
    /// More about the status, when there is more.
    public var detail: String?
}
