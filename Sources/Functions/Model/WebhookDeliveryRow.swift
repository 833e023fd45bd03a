import Foundation

/// A `webhook_deliveries` row: a HyperTrack delivery the endpoint acknowledged, waiting for ``IngestWebhookDelivery``
/// (its events are in `webhook_delivery_bodies`, see ``M0027WebhookDeliveries``).
public struct WebhookDeliveryRow: Sendable, Hashable, Codable {
    /// The row's id (the body's `delivery_id`).
    public var id: Int64
    /// `x-amz-sns-message-id` of the delivery.
    public var messageID: String
    /// When the endpoint stored it: the inbox rows' `received_at`.
    public var receivedAt: Date

    /// Creates a row.
    public init(id: Int64, messageID: String, receivedAt: Date) {
        self.id = id
        self.messageID = messageID
        self.receivedAt = receivedAt
    }

    private enum CodingKeys: String, CodingKey {
        case id
        case messageID = "message_id"
        case receivedAt = "received_at"
    }
}
