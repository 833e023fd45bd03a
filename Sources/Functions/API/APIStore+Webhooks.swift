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

    /// Stores a delivery in one transaction and two statements: its usable events in the inbox (an event already
    /// there, by message id and index or by content, is skipped) and its rejections.
    ///
    /// One multi-row INSERT instead of one statement per event: a delivery of ten location events was ten round
    /// trips inside the request's transaction. Each row gets its ordering key (see ``M0014WebhookOrdering``): a
    /// device's position events are handled one at a time, in order.
    /// - Returns: How many events were new.
    func storeWebhook(messageID: String, intake: WebhookIntake) async throws -> Int {
        let logger = self.logger
        let encoder = JSONEncoder()
        let events = try String(decoding: encoder.encode(intake.events), as: UTF8.self)
        let rejections = try String(
            decoding: encoder.encode(
                intake.rejections.map { RejectionRecord(event_index: $0.index, reason: $0.reason, payload: $0.payload) }
            ),
            as: UTF8.self
        )
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            let inserted =
                intake.events.isEmpty
                ? 0
                : try await connection.count(
                    """
                    INSERT INTO webhook_events (message_id, event_index, type, value, device_id, trip_id, latitude,
                                                longitude, recorded_at, summary, payload, content_key,
                                                ordering_key)
                    SELECT \(messageID), e.event_index, e.type, e.value, e.device_id, e.trip_id, e.latitude,
                           e.longitude, to_timestamp(e.recorded_at), e.summary, e.payload, e.content_key,
                           CASE
                               WHEN e.type IN ('location', 'device_status') AND e.device_id IS NOT NULL
                                   THEN 'device:' || e.device_id
                               WHEN e.trip_id IS NOT NULL THEN 'trip:' || e.trip_id
                               ELSE 'event:' || \(messageID) || ':' || e.event_index
                           END
                    FROM jsonb_to_recordset(\(events)::jsonb) AS e(
                        event_index int, type text, value text, device_id text, trip_id text, latitude float8,
                        longitude float8, recorded_at float8, summary jsonb, payload jsonb, content_key text)
                    ORDER BY e.event_index
                    ON CONFLICT DO NOTHING
                    RETURNING id
                    """,
                    logger: logger
                )
            if !intake.rejections.isEmpty {
                try await connection.count(
                    """
                    INSERT INTO webhook_rejections (message_id, event_index, reason, payload)
                    SELECT \(messageID), r.event_index, r.reason, r.payload
                    FROM jsonb_to_recordset(\(rejections)::jsonb) AS r(event_index int, reason text, payload jsonb)
                    """,
                    logger: logger
                )
            }
            return inserted
        }
    }
}
