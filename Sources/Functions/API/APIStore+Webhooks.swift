import Foundation
import Logging
import NIOCore
import PostgresNIO
import TriggerRuntime

extension APIStore {
    /// Stores an authenticated delivery's body as received, for the worker to decode and apply
    /// (``Backend/Configuration/Webhook/Apply/worker``): one statement (``WebhookStatements/Receipt``,
    /// ``M0034WebhookBodiesAsReceived``), no transaction of its own.
    func storeWebhookAsReceived(messageID: String, body: ByteBuffer) async throws {
        _ = try await self.client.rows(WebhookStatements.Receipt(messageID: messageID, body: body), logger: self.logger)
    }

    /// Applies a delivery's usable events (``ApplyWebhookDelivery/apply(_:on:stillRefresh:logger:)``: statuses,
    /// positions, inbox) and stores its rejections, in one transaction, before the 202
    /// (``Backend/Configuration/Webhook/Apply/request``).
    func applyWebhook(messageID: String, intake: WebhookIntake) async throws {
        let logger = self.logger
        let delivery = ReceivedDelivery(messageID: messageID, intake: intake)
        try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            if let delivery {
                _ = try await ApplyWebhookDelivery.apply(
                    delivery,
                    on: connection,
                    stillRefresh: self.stillRefresh,
                    logger: logger
                )
            }
            try await WebhookStatements.recordRejections(
                intake.rejections,
                messageID: messageID,
                on: connection,
                logger: logger
            )
        }
    }
}
