import Foundation
import HyperTrackAPI
import Logging
import PostgresNIO

/// The intake's statements, prepared once per pooled connection: the receipt the API writes
/// (``APIStore/storeWebhookAsReceived(messageID:body:)``) and the three that ``ApplyWebhookDelivery`` applies it with.
///
/// **Why.** Sent unnamed, each delivery's statements were parsed and planned anew: in the 22nd session's 10-minute
/// city (`pg_stat_statements` with `track_planning`) the inbox insert planned for 7.1 ms, the position upsert for
/// 7.9 ms and the status update for 2.1 ms a delivery, some 17 ms of every acknowledgement before any row was
/// written. Their generic plans are their custom ones: the events arrive as a `jsonb` parameter or as arrays that
/// the planner sizes the same (a function scan's default rows) whatever they hold.
///
/// The events and elements are declared `text` and cast in the statement: a Swift string binds as text, and a
/// parameter PostgreSQL inferred as `jsonb` would expect `jsonb`'s binary form.
enum WebhookStatements {
    /// The intake transaction's settings, set before its statements.
    ///
    /// The generic plan, always: the inbox statement's custom plans parse the delivery's JSON while planning (a
    /// constant then), so PostgreSQL rated them cheaper and planned nearly every delivery anew, 6.4 ms a delivery of
    /// planning in the 31st session's city run (988 plans for 1,034 calls), for a plan no better. The two statements
    /// before it were planned generically anyway (24-34 plans in 300 calls). Nothing that reaches the plans of the
    /// triggers the intake's writes fire: `enable_seqscan = off` here had the runtime's capture trigger, planned
    /// inside, run 89 ms a row (``M0029DeviceDriveEnds``).
    static let settings: PostgresQuery = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)"

    /// A delivery as received, in one statement: its receipt (``M0031WebhookReceipts``, which the runtime captures
    /// for ``ApplyWebhookDelivery``) and its body as it arrived (``M0034WebhookBodiesAsReceived``); returns the
    /// receipt's id. This is all the acknowledgement writes: the worker decodes the body.
    ///
    /// v1 wrote the events the API had decoded (`elements`, `events`, the location devices); the worker still applies
    /// such receipts (a previous release's API).
    struct Receipt: PostgresPreparedStatement {
        static let name = "functions_webhook_receipt_v2"
        static let sql = """
            WITH receipt AS (
                INSERT INTO \(M0031WebhookReceipts.receipts) (message_id) VALUES ($1) RETURNING id
            ),
            body AS (
                INSERT INTO \(M0031WebhookReceipts.bodies) (receipt_id, body) SELECT id, $2 FROM receipt
            )
            SELECT id FROM receipt
            """
        static let bindingDataTypes: [PostgresDataType] = [.text, .bytea]
        typealias Row = Int64

        var messageID: String
        /// The body as received (authenticated, not decoded).
        var body: ByteBuffer

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.messageID)
            bindings.append(self.body)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }

    /// A receipt to apply, with its body; no row when it is gone (applied already). A body as received
    /// (``Receipt``) or, from a previous release's API, the events it decoded (`elements`, `events`; its
    /// `location_devices` and `has_statuses` are derived from the events again).
    struct ReceiptToApply: PostgresPreparedStatement {
        static let name = "functions_webhook_receipt_to_apply_v3"
        static let sql = """
            SELECT r.message_id, r.received_at, b.body, b.elements, b.events
            FROM \(M0031WebhookReceipts.receipts) r
            JOIN \(M0031WebhookReceipts.bodies) b ON b.receipt_id = r.id
            WHERE r.id = $1
            FOR UPDATE OF r
            """
        static let bindingDataTypes: [PostgresDataType] = [.int8]
        typealias Row = StoredReceipt

        var id: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(self.id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (messageID, receivedAt, body, elements, events) = try row.decode(
                (String, Date, ByteBuffer?, String?, String?).self
            )
            if let body {
                return StoredReceipt(messageID: messageID, receivedAt: receivedAt, body: Data(body.readableBytesView))
            }
            guard let elements, let events else {
                throw FunctionsError.malformedRow("webhook receipt of \(messageID) without a body or its events")
            }
            return .decoded(
                try ReceivedDelivery(messageID: messageID, receivedAt: receivedAt, elements: elements, stored: events)
            )
        }
    }

    /// A receipt as stored: the body as received, or the events a previous release's API decoded.
    enum StoredReceipt: Sendable {
        case asReceived(messageID: String, receivedAt: Date, body: Data)
        case decoded(ReceivedDelivery)

        init(messageID: String, receivedAt: Date, body: Data) {
            self = .asReceived(messageID: messageID, receivedAt: receivedAt, body: body)
        }
    }

    /// A delivery's rejected events (``WebhookIntake/rejections``) into `webhook_rejections`, on `connection` (inside
    /// the transaction that stores or applies the rest).
    static func recordRejections(
        _ rejections: [WebhookRejection],
        messageID: String,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        guard !rejections.isEmpty else { return }
        let records = String(
            decoding: try JSONEncoder().encode(
                rejections.map { RejectionRecord(event_index: $0.index, reason: $0.reason, payload: $0.payload) }
            ),
            as: UTF8.self
        )
        try await connection.count(
            """
            INSERT INTO webhook_rejections (message_id, event_index, reason, payload)
            SELECT \(messageID), r.event_index, r.reason, r.payload
            FROM jsonb_to_recordset(\(records)::jsonb) AS r(event_index int, reason text, payload jsonb)
            """,
            logger: logger
        )
        logger.warning(
            "webhook events rejected",
            metadata: [
                "webhook.message_id": "\(messageID)", "webhook.rejected": "\(rejections.count)",
                "webhook.reason": "\(rejections[0].reason)",
            ]
        )
    }

    /// One rejection as `jsonb_to_recordset` reads it.
    private struct RejectionRecord: Encodable {
        var event_index: Int?
        var reason: String
        var payload: JSONValue?
    }

    /// The newest tracking state of each device in the delivery, users locked in id order (as the positions' drivers
    /// are), applied unless a newer one is recorded; returns the applied events' indexes. `NO KEY UPDATE`, the lock
    /// the UPDATE takes anyway: a foreign key's check of the driver (an accept, a trip's insert) does not wait for
    /// the rest of the transaction.
    struct DeviceStatuses: PostgresPreparedStatement {
        static let name = "functions_webhook_device_statuses_v1"
        static let sql = """
            WITH latest AS (
                SELECT DISTINCT ON (e.device_id) e.device_id, e.value, e.event_index,
                       least(coalesce(to_timestamp(e.recorded_at), now()), now()) AS at
                FROM jsonb_to_recordset($1::jsonb) AS e(
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
            """
        static let bindingDataTypes: [PostgresDataType] = [.text]
        typealias Row = Int

        /// The delivery's events but its column locations (``ReceivedDelivery/othersJSON()``).
        var events: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(self.events)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int { try row.decode(Int.self) }
    }

    /// The newest position of each device in the delivery (``ReceivedDelivery/latestLocations()``), upserted in
    /// driver order unless a newer one is recorded, or left as it is when the driver has not moved since a recent
    /// write (``stillRefresh``); returns the applied events' indexes: the moved drivers' and the still ones'.
    ///
    /// **A still driver is not written again within the refresh interval.** Most of a city's location events are
    /// idle phones reporting where they already are (the emulator's stationary reports; a parked car): 96% of the
    /// upsert's row updates in the 50th session's city were HOT, that is changed no indexed column, so no
    /// coordinate. Each was still a row version (a heap tuple, its WAL, later its vacuum, and the old and new rows
    /// in the update trigger's transition tables, ``M0020PositionEventsPerStatement``) that changed only
    /// `recorded_at`. Now an event whose driver's stored position has the same coordinates, recorded before the event
    /// but less than `$6` seconds before it, counts as applied without a write: the row already says where the
    /// driver is. Measured on a database of 10,000 drivers (52nd session; a delivery of 440 drivers, 18 of them
    /// moved, replayed in a rolled-back transaction with pgbench, prepared, vacuumed before each round, three rounds
    /// alternated): 12.5 ms (v3) → 5.7 ms. In the 4,000-ride city its mean call was 0.67-0.85× v3's in four
    /// alternated pairs (a call there also waits for a core; the rides' latencies did not move beyond the machine's
    /// own spread: BENCHMARKS.md, 52nd session).
    ///
    /// The interval is a quarter of dispatch's ``Backend/Configuration/Dispatch/maxPositionAge`` (30 s of the
    /// default 120 s): a still driver who keeps reporting stays dispatchable, and one whose phone stops after an
    /// unwritten report leaves dispatch up to an interval *sooner* than before, never later. The price is an
    /// out-of-order race: a report of another place, older than the unwritten one but newer than the stored row,
    /// that arrives after it is written, so the row can name a place the driver left (by at most the interval)
    /// until their next report moves it back. The still test reads the row without a lock; a concurrent write it
    /// does not see is the same race.
    ///
    /// The applied indexes come from the `located` rows (each event's driver found once; v3 probed `users` a second
    /// time to answer them): the still ones and those whose driver the upsert returned, found with the moved drivers
    /// as one array (`= ANY`, computed once). Joined to the `moved` rows instead (v1), the planner, which sizes both
    /// sides at one row, chose a nested loop over the two: 249,500 rows compared and dropped for a delivery of 500
    /// drivers (23rd session: 90-93 ms with the join against 29-44 ms without).
    ///
    /// v3 wrote every newest position; it took the positions as arrays, each device's newest picked by the API; v2
    /// parsed the delivery's events as JSON and picked them with `DISTINCT ON` (``ReceivedDelivery``).
    struct Positions: PostgresPreparedStatement {
        static let name = "functions_webhook_positions_v4"
        static let sql = """
            WITH latest AS (
                SELECT l.device_id, l.latitude, l.longitude, least(to_timestamp(l.recorded_at), now()) AS recorded_at,
                       l.event_index
                FROM unnest($1::text[], $2::float8[], $3::float8[], $4::float8[], $5::int8[])
                    AS l(device_id, latitude, longitude, recorded_at, event_index)
            ),
            located AS MATERIALIZED (
                SELECT u.id AS driver_id, l.latitude, l.longitude, l.recorded_at, l.event_index,
                       coalesce(p.lat = l.latitude AND p.lng = l.longitude AND p.recorded_at < l.recorded_at
                                AND p.recorded_at > l.recorded_at - make_interval(secs => $6::float8), false)
                           AS still
                FROM latest l JOIN users u ON u.device_id = l.device_id
                LEFT JOIN driver_positions p ON p.driver_id = u.id
            ),
            moved AS (
                INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                SELECT k.driver_id, k.latitude, k.longitude, k.recorded_at
                FROM located k WHERE NOT k.still
                ORDER BY k.driver_id
                ON CONFLICT (driver_id) DO UPDATE
                    SET lat = excluded.lat, lng = excluded.lng, recorded_at = excluded.recorded_at,
                        updated_at = now()
                    WHERE driver_positions.recorded_at < excluded.recorded_at
                RETURNING driver_id
            )
            SELECT k.event_index FROM located k
            WHERE k.still OR k.driver_id = ANY (ARRAY(SELECT driver_id FROM moved))
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .textArray, .float8Array, .float8Array, .float8Array, .int8Array, .float8,
        ]
        typealias Row = Int

        /// Each device's newest location (``ReceivedDelivery/latestLocations()``): the columns are read from
        /// events with a device, a position and a time (``ReceivedDelivery/isColumnLocation(_:)``).
        var latest: [InboxEvent]
        /// How long a still driver's stored position stands for their reports of the same place (above).
        var stillRefresh: Duration

        /// The refresh interval for dispatch's position age: a quarter of it.
        static func stillRefresh(maxPositionAge: Duration) -> Duration { maxPositionAge / 4 }

        func makeBindings() throws -> PostgresBindings {
            let columns = LocationColumns(self.latest)
            var bindings = PostgresBindings(capacity: 6)
            bindings.append(columns.devices)
            bindings.append(columns.latitudes)
            bindings.append(columns.longitudes)
            bindings.append(columns.recordedAt)
            bindings.append(columns.indexes)
            bindings.append(self.stillRefresh.seconds)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int { try row.decode(Int.self) }
    }

    /// Location events as the statements' array columns, in the events' order.
    struct LocationColumns {
        var indexes: [Int] = []
        var devices: [String] = []
        var latitudes: [Double] = []
        var longitudes: [Double] = []
        var recordedAt: [Double] = []
        /// Each event's ``InboxEvent/contentID`` (a SHA-256 each: only for the inbox, which stores it).
        var contentIDs: [String] = []

        /// The columns of `events` that have a device, a position and a time (others are left out; the intake's
        /// ``ReceivedDelivery/locations`` has no others).
        init(_ events: [InboxEvent], contentIDs: Bool = false) {
            for event in events {
                guard let device = event.deviceID, let latitude = event.latitude, let longitude = event.longitude,
                    let at = event.recordedAt
                else { continue }
                self.indexes.append(event.index)
                self.devices.append(device)
                self.latitudes.append(latitude)
                self.longitudes.append(longitude)
                self.recordedAt.append(at)
                if contentIDs { self.contentIDs.append(event.contentID) }
            }
        }
    }

    /// The delivery's events into the inbox (an event already there, by message id and index or by content, is
    /// skipped), each location and device status written handled with what the two statements above did with it;
    /// returns the new rows' ids.
    ///
    /// A location of a known device is not written when no drive can read it (``M0028DriveLocations``): its driver
    /// has no active order and its device no leg whose drive ends at or after the delivery's receipt (v6 and before:
    /// `now()`, when the intake applied what it received; ``M0031WebhookReceipts``). The positions statement has
    /// moved the driver; the row had no reader. Which devices' locations are kept is one call a delivery of
    /// ``M0029DeviceDriveEnds/deviceFunction`` with the delivery's location devices: index probes per device, planned
    /// at each call. v3 read the open legs and active orders once a delivery (`IN`), a third of both tables in the
    /// 4,000-ride runs (54 ms of an 81 ms call mid-run, 31st session): its cost grew with the rides in flight.
    ///
    /// The delivery as sent (`$1`, each row's payload) is parsed by a scalar subquery, an init plan that PostgreSQL
    /// runs when a row first reads it: a delivery whose rows are all dropped (most of a city's, idle drivers'
    /// locations) is never parsed. v5 parsed it in a `MATERIALIZED` CTE joined to every row, 4 ms of a 9-15 ms call
    /// for a delivery of 434 idle drivers' locations (129 KB as sent) on a 600-ride database, unloaded (33rd
    /// session); it is the largest text the intake sends. In the 4,000-ride city the mean call did not move (18.9
    /// and 20.7 ms against 17.9-20.1, alternated): with a third of the drivers on a ride, nearly every delivery keeps
    /// some rows (37 of 434 a delivery on average) and parses the delivery anyway. Sending each event as sent
    /// (a `text[]`, parsed per kept row) would cut that too; the API would have to split the body's array itself.
    ///
    /// v8 takes the locations as array columns (`$11`-`$16`, ``ReceivedDelivery``) and only the other events as
    /// JSON (`$3`): v7 parsed all ~434 of a city's delivery from JSON, 3 ms a call unloaded, to keep the few a drive
    /// reads. v9 takes each event as sent as its own text (`$17`, ``JSONArrayElements``) and parses only the kept
    /// rows' payloads; the delivery whole (`$1`, the init plan above) is sent only when it could not be cut.
    ///
    /// v10 writes every row that does not fire `onTripWebhook` (its value is none of ``OnTripWebhook/actingOn``: a
    /// trip's `created`, a geofence, a battery) already handled, with the outcome the function would have written
    /// (``OnTripWebhook/unhandledOutcome(type:value:)``); v9 left them to a delivery each, a third of a ride's trip
    /// events. Processed, they are pruned like the rest (`PruneWebhookEvents` deletes processed rows only).
    struct Inbox: PostgresPreparedStatement {
        static let name = "functions_webhook_inbox_v10"
        /// ``OnTripWebhook/actingOn`` as an SQL list of literals: a row whose value is none of them (or null) does
        /// not fire the function, so it is written handled.
        static let actingOn = OnTripWebhook.actingOn.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }
            .joined(separator: ", ")
        static let sql = """
            WITH kept AS MATERIALIZED (
                SELECT \(M0031WebhookReceipts.deviceFunctionAt)($9::text[], coalesce($10, now())) AS device_id
            ),
            events AS (
                SELECT e.event_index, e.type, e.value, e.device_id, e.trip_id, e.latitude, e.longitude,
                       e.recorded_at, e.summary, e.content_id
                FROM jsonb_to_recordset($3::jsonb) AS e(
                    event_index int, type text, value text, device_id text, trip_id text, latitude float8,
                    longitude float8, recorded_at float8, summary jsonb, content_id uuid)
                UNION ALL
                SELECT l.event_index, 'location', NULL, l.device_id, NULL, l.latitude, l.longitude,
                       l.recorded_at, NULL, l.content_id::uuid
                FROM unnest($11::int[], $12::text[], $13::float8[], $14::float8[], $15::float8[], $16::text[])
                    AS l(event_index, device_id, latitude, longitude, recorded_at, content_id)
            )
            INSERT INTO webhook_events (message_id, event_index, type, value, device_id, trip_id, latitude,
                                        longitude, recorded_at, summary, payload, content_id,
                                        ordering_key, outcome, processed_at, received_at)
            SELECT $2, e.event_index, e.type, e.value, e.device_id, e.trip_id, e.latitude,
                   e.longitude, to_timestamp(e.recorded_at), e.summary,
                   CASE WHEN cardinality($17::text[]) > 0 THEN ($17::text[])[e.event_index + 1]::jsonb
                        ELSE (SELECT $1::jsonb) -> e.event_index END,
                   e.content_id,
                   CASE
                       WHEN e.type IN ('location', 'device_status') AND e.device_id IS NOT NULL
                           THEN 'device:' || e.device_id
                       WHEN e.trip_id IS NOT NULL THEN 'trip:' || e.trip_id
                       ELSE 'event:' || $2 || ':' || e.event_index
                   END,
                   CASE
                       WHEN e.type = 'location' THEN
                           CASE WHEN e.event_index = ANY ($4::int[]) THEN $5 ELSE $6 END
                       WHEN e.type = 'device_status' THEN
                           CASE WHEN e.device_id IS NULL OR e.value IS NULL THEN $7
                                WHEN e.value NOT IN ('active', 'inactive', 'disconnected')
                                    THEN 'ignored: device_status ' || e.value || ' is not a tracking state'
                                WHEN e.event_index = ANY ($4::int[]) THEN 'applied: device ' || e.value
                                ELSE $8 END
                       WHEN NOT coalesce(e.value IN (\(Self.actingOn)), false) THEN
                           'ignored: ' || e.type || coalesce('/' || e.value, '') || ' is not handled'
                   END,
                   CASE WHEN e.type IN ('location', 'device_status')
                          OR NOT coalesce(e.value IN (\(Self.actingOn)), false) THEN now() END,
                   coalesce($10, now())
            FROM events e
            WHERE e.type IS DISTINCT FROM 'location' OR e.device_id IS NULL
               OR e.device_id IN (SELECT k.device_id FROM kept k)
            ORDER BY e.event_index
            ON CONFLICT DO NOTHING
            RETURNING id
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .text, .text, .text, .int8Array, .text, .text, .text, .text, .textArray, .timestamptz,
            .int8Array, .textArray, .float8Array, .float8Array, .float8Array, .textArray, .textArray,
        ]
        typealias Row = Int64

        var delivery: ReceivedDelivery
        /// Indexes of the location and status events the delivery applied.
        var applied: [Int]
        /// Whether the payloads go cut (``JSONArrayElements``); `false` sends the delivery whole, as when it could
        /// not be cut (not seen: it is always an array the intake decoded or wrote), for the tests of that way.
        var cutsPayloads = true

        func makeBindings() throws -> PostgresBindings {
            let locations = LocationColumns(self.delivery.locations, contentIDs: true)
            let payloads = self.cutsPayloads ? JSONArrayElements.split(self.delivery.elements) ?? [] : []
            var bindings = PostgresBindings(capacity: 17)
            bindings.append(payloads.isEmpty ? self.delivery.elements : "")
            bindings.append(self.delivery.messageID)
            bindings.append(try self.delivery.othersJSON())
            bindings.append(self.applied)
            bindings.append(ApplyWebhookDelivery.positionApplied)
            bindings.append(ApplyWebhookDelivery.positionIgnored)
            bindings.append(ApplyWebhookDelivery.statusIncomplete)
            bindings.append(ApplyWebhookDelivery.statusIgnored)
            bindings.append(self.delivery.devices)
            bindings.append(self.delivery.receivedAt)
            bindings.append(locations.indexes)
            bindings.append(locations.devices)
            bindings.append(locations.latitudes)
            bindings.append(locations.longitudes)
            bindings.append(locations.recordedAt)
            bindings.append(locations.contentIDs)
            bindings.append(payloads)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }
}
