import Foundation
import NIOCore
import TriggerRuntime

/// Turns log events into server-sent events: `id:` (the position), `event:` (the kind) and one `data:` line of
/// JSON, in the API's encoding (ISO 8601 dates, sorted keys).
///
/// - `order.status`, `order.legs`, `order.summary`: `{"order": Order}`, the order as `GET /v1/orders/{id}` shows it
///   at that change.
/// - `offer.new`: `{"order": Order, "expires_at": date}`; `offer.closed`: `{"order_id", "reason"}`.
/// - `driver.position`: `{"order_id", "lat", "lng", "recorded_at"}`.
/// - On the share stream, the order events are `share.order` with a ``ShareView`` (only what the page shows), and
///   positions `driver.position` as above.
/// - Control events carry no id: `stream.reset` `{"reason": "events_expired", "pruned_through"}` (a resume from
///   before the retention: refetch the order) and `stream.closed` `{"reason"}` (``EventSubscription/CloseReason``).
enum OrderEventRenderer {
    private struct Documents: Decodable {
        var order: OrderRow
        var driver: UserRow?
        var legs: [LegRow]
        var expiresAt: Date?

        enum CodingKeys: String, CodingKey {
            case order, driver, legs
            case expiresAt = "expires_at"
        }

        var view: OrderView {
            get throws { try OrderView(order: self.order, driver: self.driver, legs: self.legs) }
        }
    }

    private struct Position: Codable {
        var orderID: UUID
        var lat: Double
        var lng: Double
        var recordedAt: Date

        enum CodingKeys: String, CodingKey {
            case lat, lng
            case orderID = "order_id"
            case recordedAt = "recorded_at"
        }
    }

    private struct OfferClosed: Codable {
        var orderID: UUID
        var reason: String

        enum CodingKeys: String, CodingKey {
            case reason
            case orderID = "order_id"
        }
    }

    private struct OrderData: Encodable {
        var order: OrderView
        var expiresAt: Date?

        enum CodingKeys: String, CodingKey {
            case order
            case expiresAt = "expires_at"
        }
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The server-sent event of `event` for a party's stream or, with `share`, a share page's. Nothing else of the
    /// stream is an input: one rendering serves every stream of its kind (``OrderEventFrames``).
    /// - Throws: When the event's payload does not decode (a row written outside the triggers).
    static func render(_ event: OrderEvent, share: Bool) throws -> String {
        let decoder = JSONDecoder.rowDecoder()
        let payload = Data(event.payload.utf8)
        let encoder = Self.encoder
        let name: String
        let data: Data
        switch event.kind {
        case .orderStatus, .orderLegs, .orderSummary, .offerNew:
            let documents = try decoder.decode(Documents.self, from: payload)
            if share {
                name = "share.order"
                data = try encoder.encode(ShareView(order: try documents.view))
            } else {
                name = event.kind.rawValue
                data = try encoder.encode(OrderData(order: try documents.view, expiresAt: documents.expiresAt))
            }
        case .driverPosition:
            name = event.kind.rawValue
            data = try encoder.encode(try decoder.decode(Position.self, from: payload))
        case .offerClosed:
            name = event.kind.rawValue
            data = try encoder.encode(try decoder.decode(OfferClosed.self, from: payload))
        case .shareRevoked:
            // Never shown: the stream it concerns ends instead (``EventStream``).
            return Self.closed(.revoked)
        }
        return Self.frame(id: event.position, name: name, data: String(decoding: data, as: UTF8.self))
    }

    /// One server-sent event; `id` is left out for control events (the client's last id stays its last event's).
    static func frame(id: Int64?, name: String, data: String) -> String {
        var text = ""
        if let id { text += "id: \(id)\n" }
        text += "event: \(name)\ndata: \(data)\n\n"
        return text
    }

    /// `stream.closed` with `reason`.
    static func closed(_ reason: EventSubscription.CloseReason) -> String {
        Self.frame(id: nil, name: "stream.closed", data: #"{"reason":"\#(reason.rawValue)"}"#)
    }

    /// `stream.reset`: events after the client's last id were deleted by the retention sweep.
    static func reset(prunedThrough: Int64) -> String {
        Self.frame(
            id: nil,
            name: "stream.reset",
            data: #"{"pruned_through":\#(prunedThrough),"reason":"events_expired"}"#
        )
    }
}
