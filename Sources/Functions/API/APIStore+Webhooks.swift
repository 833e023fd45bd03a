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

    /// Stores a delivery as received: a receipt of its usable events, which ``ApplyWebhookDelivery`` applies in the
    /// worker (``M0031WebhookReceipts``: this is the whole acknowledgement), and its rejections. One statement, no
    /// transaction of its own, for the common delivery; a transaction when it has rejections too.
    /// - Returns: The receipt's id; `nil` when the delivery had no usable event.
    @discardableResult
    func storeWebhook(messageID: String, intake: WebhookIntake) async throws -> Int64? {
        let logger = self.logger
        let encoder = JSONEncoder()
        let receipt: WebhookStatements.Receipt? =
            intake.events.isEmpty
            ? nil
            : WebhookStatements.Receipt(
                messageID: messageID,
                eventCount: intake.events.count,
                elements: intake.elements,
                events: try String(decoding: encoder.encode(intake.events), as: UTF8.self),
                locationDevices: Array(Set(intake.events.compactMap { $0.type == "location" ? $0.deviceID : nil })),
                hasStatuses: intake.events.contains { $0.type == "device_status" }
            )
        guard !intake.rejections.isEmpty else {
            guard let receipt else { return nil }
            return try await self.client.rows(receipt, logger: logger).first
        }
        let rejections = try String(
            decoding: encoder.encode(
                intake.rejections.map { RejectionRecord(event_index: $0.index, reason: $0.reason, payload: $0.payload) }
            ),
            as: UTF8.self
        )
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            var id: Int64?
            if let receipt { id = try await connection.rows(receipt, logger: logger).first }
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
