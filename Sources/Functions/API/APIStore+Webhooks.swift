import Foundation
import HyperTrackAPI
import Logging
import PostgresNIO
import TriggerRuntime

extension APIStore {
    /// One rejection as `jsonb_to_recordset` reads it.
    private struct RejectionRecord: Encodable {
        var event_index: Int?
        var reason: String
        var payload: JSONValue?
    }

    /// What the intake records on a location event's inbox row (the same words `onTripWebhook` used when it applied
    /// them one delivery at a time).
    static let positionApplied = "applied: position"
    static let positionIgnored = "ignored: unknown device or a newer position is recorded"
    /// The same for `device_status` events (`applied: device <value>` when applied).
    static let statusIgnored = "ignored: unknown device or a newer status is recorded"
    static let statusIncomplete = "ignored: device_status without device or value"

    /// Stores a delivery as received, to be filed by ``IngestWebhookDelivery``: its usable events and elements as one
    /// `webhook_deliveries` row and its body (``WebhookStatements/Delivery``), its rejections in
    /// `webhook_rejections`, in one transaction (one statement when nothing was rejected, the common case).
    ///
    /// **Why not file the events here.** The endpoint answered HyperTrack after the whole intake (see
    /// ``M0027WebhookDeliveries``); HyperTrack needs to know the delivery is safe, which it is once this commits.
    /// - Returns: The delivery's id, or `nil` when it had no usable event.
    @discardableResult
    func storeWebhook(messageID: String, intake: WebhookIntake) async throws -> Int64? {
        let logger = self.logger
        let encoder = JSONEncoder()
        let delivery = WebhookStatements.Delivery(
            messageID: messageID,
            events: try String(decoding: encoder.encode(intake.events), as: UTF8.self),
            elements: intake.elements,
            hasLocations: intake.events.contains { $0.type == "location" },
            hasStatuses: intake.events.contains { $0.type == "device_status" }
        )
        let hasEvents = !intake.events.isEmpty
        guard !intake.rejections.isEmpty else {
            guard hasEvents else { return nil }
            return try await self.client.withConnection { connection in
                try await connection.rows(delivery, logger: logger).first
            }
        }
        let rejections = try String(
            decoding: encoder.encode(
                intake.rejections.map { RejectionRecord(event_index: $0.index, reason: $0.reason, payload: $0.payload) }
            ),
            as: UTF8.self
        )
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            let id = hasEvents ? try await connection.rows(delivery, logger: logger).first : nil
            try await connection.count(
                """
                INSERT INTO webhook_rejections (message_id, event_index, reason, payload)
                SELECT \(messageID), r.event_index, r.reason, r.payload
                FROM jsonb_to_recordset(\(rejections)::jsonb) AS r(event_index int, reason text, payload jsonb)
                """,
                logger: logger
            )
            return id
        }
    }
}
