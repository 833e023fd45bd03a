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

    /// Stores a delivery in one transaction: its location events move their drivers (the newest position of each
    /// device in the delivery, unless a newer one is recorded), then its usable events go to the inbox (an event
    /// already there, by message id and index or by content, is skipped) and its rejections to theirs.
    ///
    /// One multi-row INSERT instead of one statement per event: a delivery of ten location events was ten round
    /// trips inside the request's transaction. Each row gets its ordering key (see ``M0014WebhookOrdering``). The
    /// statements are prepared once per connection (``WebhookStatements``).
    ///
    /// **Positions and device statuses are applied here, not by a function.** Location events are nearly all of HyperTrack's traffic
    /// (every online driver every few seconds); handled by `onTripWebhook`, each cost the worker a claim, a
    /// transaction and an outcome update, and the 10,000-driver simulation's worker topped out at 270 events/s,
    /// 21,000 deliveries behind, with dispatch and arrivals queued behind them. Applied set-based in the intake's
    /// transaction, they cost one more statement per delivery; their inbox rows are written already handled
    /// (outcome and `processed_at`) and `onTripWebhook`'s trigger skips them (``OnTripWebhook/trigger``). The
    /// upsert takes the drivers' rows in driver order, so two deliveries naming the same drivers in different orders
    /// cannot deadlock, and its `recorded_at` guard makes the newest position win whichever commits first. An event
    /// seen again (a replay) is not newer than itself, so it moves nothing. Device statuses (`active`, `inactive`,
    /// `disconnected`: whether dispatch may offer the driver rides) likewise: every drive's start and end sends one,
    /// a fifth of the worker's deliveries in the 10,000-driver simulation until they were applied here. They are
    /// applied first: a status change writes the driver's `driver_positions.online` (``M0021FreeDriverIndex``), and
    /// every writer takes a driver's `users` row before their position row, so this transaction and an availability
    /// change beside it cannot each hold the row the other waits for.
    /// - Returns: How many events were new.
    func storeWebhook(messageID: String, intake: WebhookIntake) async throws -> Int {
        let logger = self.logger
        let encoder = JSONEncoder()
        let events = try String(decoding: encoder.encode(intake.events), as: UTF8.self)
        let elements = intake.elements
        let rejections = try String(
            decoding: encoder.encode(
                intake.rejections.map { RejectionRecord(event_index: $0.index, reason: $0.reason, payload: $0.payload) }
            ),
            as: UTF8.self
        )
        let hasLocations = intake.events.contains { $0.type == "location" }
        let hasStatuses = intake.events.contains { $0.type == "device_status" }
        let locationDevices = Array(Set(intake.events.compactMap { $0.type == "location" ? $0.deviceID : nil }))
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            try await connection.query(WebhookStatements.settings, logger: logger)
            var applied: [Int] = []
            if hasStatuses {
                applied += try await connection.rows(WebhookStatements.DeviceStatuses(events: events), logger: logger)
            }
            if hasLocations {
                applied += try await connection.rows(WebhookStatements.Positions(events: events), logger: logger)
            }
            let inserted =
                intake.events.isEmpty
                ? 0
                : try await connection.rows(
                    WebhookStatements.Inbox(
                        elements: elements, messageID: messageID, events: events, applied: applied,
                        locationDevices: locationDevices
                    ),
                    logger: logger
                ).count
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
