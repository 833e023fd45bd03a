import Foundation

/// What the public share page of a ride shows, and nothing more: no rider, no phone numbers, no trip ids.
public struct ShareView: Encodable, Sendable, Hashable {
    /// The driver as the page names them.
    public struct Driver: Encodable, Sendable, Hashable {
        /// The first word of the driver's name.
        public var firstName: String
        /// The car.
        public var car: CarView

        enum CodingKeys: String, CodingKey {
            case car
            case firstName = "first_name"
        }
    }

    /// The order's status.
    public var status: OrderStatus
    /// The driver, once one accepted.
    public var driver: Driver?
    /// When the running leg's driver is expected at its destination.
    public var eta: Date?
    /// Where the rider is picked up.
    public var pickup: PlaceView
    /// Where the ride ends.
    public var dropoff: PlaceView
    /// The planned route of each leg so far (`[lng, lat]` points, simplified), pickup first.
    public var routes: [[[Double]]]
    /// Distances, durations and fare, after the ride.
    public var summary: OrderSummary?
    /// When the order last changed.
    public var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case status, driver, eta, pickup, dropoff, routes, summary
        case updatedAt = "updated_at"
    }

    /// The page's view of an order.
    public init(order: OrderView) {
        self.status = order.status
        self.driver = order.driver.map {
            Driver(firstName: $0.name.split(separator: " ").first.map(String.init) ?? $0.name, car: $0.car)
        }
        self.eta = order.liveLeg?.eta
        self.pickup = order.pickup
        self.dropoff = order.dropoff
        self.routes = order.legs.compactMap(\.route)
        self.summary = order.summary
        self.updatedAt = order.updatedAt
    }
}
