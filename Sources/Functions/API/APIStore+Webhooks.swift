import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// One event of a webhook delivery, normalised for the inbox.
struct InboxEvent: Sendable, Hashable {
    var index: Int
    var type: String
    var value: String?
    var deviceID: String?
    var tripID: String?
    var latitude: Double?
    var longitude: Double?
    var recordedAt: Date?
    var summary: LegSummary?
    /// The event exactly as sent, as JSON text.
    var payload: String
}

extension APIStore {
    /// Stores a delivery's events in the inbox in one transaction; a redelivery (same message id) inserts nothing.
    /// - Returns: How many events were new.
    func storeWebhook(messageID: String, events: [InboxEvent]) async throws -> Int {
        let logger = self.logger
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            var inserted = 0
            for event in events {
                let summary = try event.summary.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
                inserted += try await connection.count(
                    """
                    INSERT INTO webhook_events (message_id, event_index, type, value, device_id, trip_id, latitude,
                                                longitude, recorded_at, summary, payload)
                    VALUES (\(messageID), \(event.index), \(event.type), \(event.value), \(event.deviceID),
                            \(event.tripID), \(event.latitude), \(event.longitude), \(event.recordedAt),
                            \(summary)::jsonb, \(event.payload)::jsonb)
                    ON CONFLICT (message_id, event_index) DO NOTHING
                    RETURNING id
                    """,
                    logger: logger
                )
            }
            return inserted
        }
    }
}
