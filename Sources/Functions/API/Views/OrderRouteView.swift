import Foundation
import Hummingbird

/// `GET /v1/orders/{id}/route`: each leg's full planned route, which order views carry only simplified.
public struct OrderRouteView: Codable, Sendable, ResponseEncodable {
    /// The order.
    public var orderID: UUID
    /// The legs, pickup first.
    public var legs: [Leg]

    /// One leg's full route.
    public struct Leg: Codable, Sendable {
        /// Pickup or dropoff.
        public var leg: LegKind
        /// The planned route as `[lng, lat]` pairs, as HyperTrack estimated it; `null` before the estimate.
        public var route: [[Double]]?
    }

    init(order: OrderView) {
        self.orderID = order.id
        self.legs = order.legs.map { Leg(leg: $0.leg, route: $0.plannedRoute) }
    }

    private enum CodingKeys: String, CodingKey {
        case legs
        case orderID = "order_id"
    }
}
