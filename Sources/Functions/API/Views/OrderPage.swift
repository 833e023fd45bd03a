import Hummingbird

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
