import Foundation
import Hummingbird

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

    /// The view of an order row, its driver's user row and its legs (in the order given).
    /// - Parameters:
    ///   - order: The `orders` row; it must carry the database's timestamps.
    ///   - driver: The driver's `users` row, once a driver accepted.
    ///   - legs: The order's legs.
    /// - Throws: ``FunctionsError/Code/malformedRow`` when the row has no timestamps (it was not read from the
    ///   database).
    init(order: OrderRow, driver: UserRow?, legs: [LegRow]) throws {
        guard let createdAt = order.createdAt, let updatedAt = order.updatedAt else {
            throw FunctionsError.malformedRow("order \(order.id) was read without its timestamps")
        }
        self.id = order.id
        self.status = order.status
        self.riderID = order.riderID
        self.pickup = PlaceView(order.pickup)
        self.dropoff = PlaceView(order.dropoff)
        self.driver = driver.map(DriverView.init(user:))
        self.cancellationReason = order.cancellationReason
        self.summary = order.summary
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.legs = legs.map(LegView.init(row:))
    }

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
