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

    /// Stores a delivery's usable events and its rejections, in one transaction.
    ///
    /// `apply` says where the events are applied: ``Backend/Configuration/Webhook/Apply/request`` applies them here
    /// (``ApplyWebhookDelivery/apply(_:on:logger:)``: statuses, positions, inbox), before the 202;
    /// ``Backend/Configuration/Webhook/Apply/worker`` writes a receipt (``M0031WebhookReceipts``), which
    /// ``ApplyWebhookDelivery`` applies in the worker: one statement, and no transaction of its own for a delivery
    /// without rejections.
    func storeWebhook(
        messageID: String,
        intake: WebhookIntake,
        apply: Backend.Configuration.Webhook.Apply
    ) async throws {
        let logger = self.logger
        let delivery = ReceivedDelivery(messageID: messageID, intake: intake)
        let rejections =
            intake.rejections.isEmpty
            ? nil
            : try String(
                decoding: JSONEncoder().encode(
                    intake.rejections.map {
                        RejectionRecord(event_index: $0.index, reason: $0.reason, payload: $0.payload)
                    }
                ),
                as: UTF8.self
            )
        if apply == .worker, rejections == nil {
            guard let delivery else { return }
            _ = try await self.client.rows(
                WebhookStatements.Receipt(delivery: delivery, eventCount: intake.events.count),
                logger: logger
            )
            return
        }
        try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            if let delivery {
                switch apply {
                case .request: _ = try await ApplyWebhookDelivery.apply(delivery, on: connection, logger: logger)
                case .worker:
                    _ = try await connection.rows(
                        WebhookStatements.Receipt(delivery: delivery, eventCount: intake.events.count),
                        logger: logger
                    )
                }
            }
            if let rejections {
                try await connection.count(
                    """
                    INSERT INTO webhook_rejections (message_id, event_index, reason, payload)
                    SELECT \(messageID), r.event_index, r.reason, r.payload
                    FROM jsonb_to_recordset(\(rejections)::jsonb) AS r(event_index int, reason text, payload jsonb)
                    """,
                    logger: logger
                )
            }
        }
    }
}
