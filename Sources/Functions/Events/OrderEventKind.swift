/// What an event of the order event log says; its raw value is the server-sent event's `event:` name.
public enum OrderEventKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// An order was booked or changed status; data `{"order": Order}`.
    case orderStatus = "order.status"
    /// A leg was created, arrived at or completed (ETA, planned route, distance); data `{"order": Order}`.
    case orderLegs = "order.legs"
    /// The ride's summary and fare were recorded; data `{"order": Order}`.
    case orderSummary = "order.summary"
    /// The driver of an active order moved (at most one a second per order); data
    /// `{"order_id", "lat", "lng", "recorded_at"}`.
    case driverPosition = "driver.position"
    /// A driver was offered an order; data `{"order": Order, "expires_at"}`, only to that driver.
    case offerNew = "offer.new"
    /// A driver's offer ended; data `{"order_id", "reason"}` with reason `declined`, `expired` (the round ended),
    /// `taken` (another driver accepted) or `cancelled`; only to that driver.
    case offerClosed = "offer.closed"
    /// A share link was revoked or replaced (payload `{"token_hash"}`): never sent; the link's share streams end
    /// with `stream.closed` reason `revoked`.
    case shareRevoked = "share.revoked"
}
