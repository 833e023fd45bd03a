import Foundation
import Hummingbird

/// `POST /v1/orders/{id}/decline`.
public struct DeclineView: Codable, Sendable, ResponseEncodable {
    /// The order whose offer was declined.
    public var orderID: UUID
    /// Always `true`: a decline that did not happen is an error response.
    public var declined: Bool

    private enum CodingKeys: String, CodingKey {
        case orderID = "order_id"
        case declined
    }
}
