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
    /// trips inside the request's transaction. Each row gets its ordering key (see ``M0014WebhookOrdering``).
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
        return try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            var applied: [Int] = []
            if hasStatuses {
                // The newest tracking state of each device in the delivery, users locked in id order (as the
                // positions' drivers are below), applied unless a newer one is recorded. `NO KEY UPDATE`, the lock
                // the UPDATE takes anyway: a foreign key's check of the driver (an accept, a trip's insert) does not
                // wait for the rest of this transaction.
                let rows = try await connection.query(
                    """
                    WITH latest AS (
                        SELECT DISTINCT ON (e.device_id) e.device_id, e.value, e.event_index,
                               least(coalesce(to_timestamp(e.recorded_at), now()), now()) AS at
                        FROM jsonb_to_recordset(\(events)::jsonb) AS e(
                            event_index int, type text, value text, device_id text, recorded_at float8)
                        WHERE e.type = 'device_status' AND e.device_id IS NOT NULL
                          AND e.value IN ('active', 'inactive', 'disconnected')
                        ORDER BY e.device_id, e.recorded_at DESC NULLS LAST, e.event_index DESC
                    ),
                    locked AS (
                        SELECT u.id, l.value, l.event_index, l.at
                        FROM latest l JOIN users u ON u.device_id = l.device_id
                        ORDER BY u.id
                        FOR NO KEY UPDATE OF u
                    )
                    UPDATE users u SET device_status = k.value, device_status_at = k.at
                    FROM locked k
                    WHERE u.id = k.id AND (u.device_status_at IS NULL OR u.device_status_at <= k.at)
                    RETURNING k.event_index
                    """,
                    logger: logger
                )
                for try await index in rows.decode(Int.self) { applied.append(index) }
            }
            if hasLocations {
                let rows = try await connection.query(
                    """
                    WITH latest AS (
                        SELECT DISTINCT ON (e.device_id) e.device_id, e.latitude, e.longitude, e.recorded_at,
                               e.event_index
                        FROM jsonb_to_recordset(\(events)::jsonb) AS e(
                            event_index int, type text, device_id text, latitude float8, longitude float8,
                            recorded_at float8)
                        WHERE e.type = 'location' AND e.device_id IS NOT NULL AND e.latitude IS NOT NULL
                          AND e.longitude IS NOT NULL AND e.recorded_at IS NOT NULL
                        ORDER BY e.device_id, e.recorded_at DESC, e.event_index DESC
                    ),
                    moved AS (
                        INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                        SELECT u.id, l.latitude, l.longitude, least(to_timestamp(l.recorded_at), now())
                        FROM latest l JOIN users u ON u.device_id = l.device_id
                        ORDER BY u.id
                        ON CONFLICT (driver_id) DO UPDATE
                            SET lat = excluded.lat, lng = excluded.lng, recorded_at = excluded.recorded_at,
                                updated_at = now()
                            WHERE driver_positions.recorded_at < excluded.recorded_at
                        RETURNING driver_id
                    )
                    SELECT l.event_index FROM moved
                    JOIN users u ON u.id = moved.driver_id JOIN latest l ON l.device_id = u.device_id
                    """,
                    logger: logger
                )
                for try await index in rows.decode(Int.self) { applied.append(index) }
            }
            let inserted =
                intake.events.isEmpty
                ? 0
                : try await connection.count(
                    """
                    WITH delivery AS MATERIALIZED (SELECT \(elements)::jsonb AS events)
                    INSERT INTO webhook_events (message_id, event_index, type, value, device_id, trip_id, latitude,
                                                longitude, recorded_at, summary, payload, content_key,
                                                ordering_key, outcome, processed_at)
                    SELECT \(messageID), e.event_index, e.type, e.value, e.device_id, e.trip_id, e.latitude,
                           e.longitude, to_timestamp(e.recorded_at), e.summary, d.events -> e.event_index,
                           e.content_key,
                           CASE
                               WHEN e.type IN ('location', 'device_status') AND e.device_id IS NOT NULL
                                   THEN 'device:' || e.device_id
                               WHEN e.trip_id IS NOT NULL THEN 'trip:' || e.trip_id
                               ELSE 'event:' || \(messageID) || ':' || e.event_index
                           END,
                           CASE
                               WHEN e.type = 'location' THEN
                                   CASE WHEN e.event_index = ANY (\(applied)::int[]) THEN \(Self.positionApplied)
                                        ELSE \(Self.positionIgnored) END
                               WHEN e.type = 'device_status' THEN
                                   CASE WHEN e.device_id IS NULL OR e.value IS NULL THEN \(Self.statusIncomplete)
                                        WHEN e.value NOT IN ('active', 'inactive', 'disconnected')
                                            THEN 'ignored: device_status ' || e.value || ' is not a tracking state'
                                        WHEN e.event_index = ANY (\(applied)::int[]) THEN 'applied: device ' || e.value
                                        ELSE \(Self.statusIgnored) END
                           END,
                           CASE WHEN e.type IN ('location', 'device_status') THEN now() END
                    FROM delivery d, jsonb_to_recordset(\(events)::jsonb) AS e(
                        event_index int, type text, value text, device_id text, trip_id text, latitude float8,
                        longitude float8, recorded_at float8, summary jsonb, content_key text)
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
