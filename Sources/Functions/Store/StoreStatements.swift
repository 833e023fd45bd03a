/// The stores' statements on the functions' hot paths, prepared once per connection (see ``PreparedText``): each
/// planned at every call when sent unnamed, for about 17 s of PostgreSQL's 231 in 180 s of the rides of the 25th
/// session's 4,000-ride city. The texts are the unnamed statements' texts with the same parameters; a parameter used
/// twice is bound once.
enum StoreStatements {
    /// An order as a JSON document: the start of ``Order`` and ``LockedOrder``.
    private static let order = "SELECT to_jsonb(o)::text FROM orders o WHERE o.id = $1"
    /// Legs as JSON documents: the start of the legs' reads, each ending in its condition and `ORDER BY l.created_at`.
    private static let legs = "SELECT to_jsonb(l)::text FROM order_legs l WHERE"

    /// An order as a JSON document.
    enum Order: PreparedText {
        static let name = "functions_store_order_v1"
        static let sql = StoreStatements.order
    }

    /// An order as a JSON document, its row locked until the transaction ends.
    enum LockedOrder: PreparedText {
        static let name = "functions_store_locked_order_v1"
        static let sql = "\(StoreStatements.order) FOR UPDATE"
    }

    /// The driver (`$1`) takes the `NEW` order (`$2`) they hold an open offer of, or one that closed less than `$3`
    /// seconds ago.
    enum Accept: PreparedText {
        static let name = "functions_store_accept_v1"
        static let sql = "\(StoreStatements.accept)\nRETURNING o.id"
    }

    /// ``Accept``, answered with the order's view (``withView(_:)``).
    enum AcceptView: PreparedText {
        static let name = "functions_store_accept_view_v1"
        static let sql = StoreStatements.withView(StoreStatements.accept)
    }

    /// Order `$2` of driver `$3` moves from `$4` to `$1`.
    enum Advance: PreparedText {
        static let name = "functions_store_advance_v2"
        static let sql = "\(StoreStatements.advance)\nRETURNING o.id"
    }

    /// ``Advance``, answered with the order's view (``withView(_:)``).
    enum AdvanceView: PreparedText {
        static let name = "functions_store_advance_view_v1"
        static let sql = StoreStatements.withView(StoreStatements.advance)
    }

    /// Order `$3` is cancelled by `$2`, its rider or driver, for reason `$1`, unless it is finished.
    enum Cancel: PreparedText {
        static let name = "functions_store_cancel_v1"
        static let sql = "\(StoreStatements.cancel)\nRETURNING o.id"
    }

    /// ``Cancel``, answered with the order's view (``withView(_:)``).
    enum CancelView: PreparedText {
        static let name = "functions_store_cancel_view_v1"
        static let sql = StoreStatements.withView(StoreStatements.cancel)
    }

    /// The writes of ``Accept``, ``Advance`` and ``Cancel`` without their `RETURNING`, each an `UPDATE orders o`.
    private static let accept = """
        UPDATE orders o SET status = 'ACCEPTED', driver_id = $1
        WHERE o.id = $2 AND o.status = 'NEW' AND EXISTS (
            SELECT 1 FROM order_offers f
            WHERE f.order_id = o.id AND f.driver_id = $1 AND f.declined_at IS NULL
              AND f.expires_at > now() - make_interval(secs => $3))
        """
    private static let advance = """
        UPDATE orders o SET status = $1 WHERE o.id = $2 AND o.driver_id = $3 AND o.status = $4
        """
    private static let cancel = """
        UPDATE orders o SET status = 'CANCELLED', cancellation_reason = $1, cancelled_by = $2
        WHERE o.id = $3 AND (o.rider_id = $2 OR o.driver_id = $2) AND o.status NOT IN ('COMPLETED', 'CANCELLED')
        """

    /// A write of one order (`UPDATE orders o …`) answered with the order's three documents as it left them
    /// (``PreparedStatements/orderViewColumns``), in the write's round trip; no row when it changed nothing.
    ///
    /// **Why.** The API's accept, start, complete and cancel each wrote, then read the order back for their reply
    /// (`order_view_documents`): a second round trip a request. The write's `RETURNING` holds the order as it now
    /// is; its driver and legs are read in the statement's snapshot, which no trigger of an order's write changes
    /// (the legs are written by the functions, later, and users by their own requests). Start and complete, which a
    /// clock step of the 53rd session's city bunches, had their p99 lower in both alternated pairs (143-158 ms
    /// against 172-190; BENCHMARKS.md).
    private static func withView(_ write: String) -> String {
        """
        WITH o AS (
        \(write)
        RETURNING o.*
        )
        SELECT \(PreparedStatements.orderViewColumns)
        FROM o LEFT JOIN users d ON d.id = o.driver_id
        """
    }

    /// Order `$2` moves from `$3` to `$1`.
    enum Move: PreparedText {
        static let name = "functions_store_move_v1"
        static let sql = "UPDATE orders SET status = $1 WHERE id = $2 AND status = $3 RETURNING id"
    }

    /// What caller `$1` is to order `$2` (see `PostgresRideStore.relation(orderID:callerID:)`).
    enum Relation: PreparedText {
        static let name = "functions_store_relation_v1"
        static let sql = """
            SELECT o.status, o.rider_id = $1, coalesce(o.driver_id = $1, false),
                   f.driver_id IS NOT NULL, coalesce(f.declined_at IS NULL AND f.expires_at > now(), false),
                   f.declined_at IS NOT NULL
            FROM orders o LEFT JOIN order_offers f ON f.order_id = o.id AND f.driver_id = $1
            WHERE o.id = $2
            """
    }

    /// The `NEW` orders within `$1` metres of dispatchable driver `$2` (positioned within the last `$3` seconds)
    /// not offered to them yet, nearest first, at most `$4`.
    enum WaitingOrders: PreparedText {
        static let name = "functions_store_waiting_orders_v1"
        static let sql = """
            SELECT o.id FROM users u
            JOIN driver_positions p ON p.driver_id = u.id
            JOIN orders o ON o.status = 'NEW'
                AND earth_box(position_earth(p.lat, p.lng), $1) @> position_earth(o.pickup_lat, o.pickup_lng)
                AND earth_distance(position_earth(p.lat, p.lng), position_earth(o.pickup_lat, o.pickup_lng)) <= $1
            WHERE u.id = $2 AND \(DriverSearchSQL.dispatchable("u"))
              AND p.recorded_at >= now() - make_interval(secs => $3)
              AND NOT EXISTS (SELECT 1 FROM order_offers f WHERE f.order_id = o.id AND f.driver_id = u.id)
            ORDER BY earth_distance(position_earth(p.lat, p.lng), position_earth(o.pickup_lat, o.pickup_lng)), o.id
            LIMIT $4
            """
    }

    /// Driver `$1`'s device.
    enum DriverDevice: PreparedText {
        static let name = "functions_store_driver_device_v1"
        static let sql = "SELECT device_id FROM users WHERE id = $1 AND role = 'driver'"
    }

    /// Records `$1` as the outcome of inbox event `$2`.
    enum WebhookOutcome: PreparedText {
        static let name = "functions_store_webhook_outcome_v1"
        static let sql = "UPDATE webhook_events SET outcome = $1, processed_at = now() WHERE id = $2"
    }

    /// The inbox events of HyperTrack trip `$1` whose outcome starts with `$2`, oldest first: the arrivals and
    /// completions waiting for the trip's leg (`webhook_events_trip_id_idx`).
    enum WaitingWebhookEvents: PreparedText {
        static let name = "functions_store_waiting_webhook_events_v1"
        static let sql = "SELECT id, outcome FROM webhook_events WHERE trip_id = $1 AND starts_with(outcome, $2) ORDER BY id"
    }

    /// The legs of HyperTrack trip `$1` as JSON documents, oldest first.
    enum LegsOfTrip: PreparedText {
        static let name = "functions_store_legs_of_trip_v1"
        static let sql = "\(StoreStatements.legs) trip_id = $1 ORDER BY l.created_at"
    }

    /// The legs of order `$1` as JSON documents, oldest first.
    enum LegsOfOrder: PreparedText {
        static let name = "functions_store_legs_of_order_v1"
        static let sql = "\(StoreStatements.legs) order_id = $1 ORDER BY l.created_at"
    }

    /// Order `$1`'s leg of kind `$2` as a JSON document.
    enum LegOfOrder: PreparedText {
        static let name = "functions_store_leg_of_order_v1"
        static let sql = "\(StoreStatements.legs) order_id = $1 AND leg = $2 ORDER BY l.created_at"
    }

    /// Order `$1`'s active legs of the kinds `$2` are to be completed.
    enum MarkLegsForCompletion: PreparedText {
        static let name = "functions_store_mark_legs_for_completion_v1"
        static let sql = """
            UPDATE order_legs SET status = 'completing', completion_requested_at = now()
            WHERE order_id = $1 AND status = 'active' AND leg = ANY($2)
            RETURNING id
            """
    }

    /// Leg `$1`, marked for completion, is completed.
    enum MarkLegCompleted: PreparedText {
        static let name = "functions_store_mark_leg_completed_v1"
        static let sql = """
            UPDATE order_legs SET status = 'completed', completed_at = coalesce(completed_at, now())
            WHERE id = $1 AND status = 'completing' RETURNING id
            """
    }

    /// Leg `$2` was arrived at at `$1` (the first arrival counts).
    enum RecordArrival: PreparedText {
        static let name = "functions_store_record_arrival_v1"
        static let sql = "UPDATE order_legs SET arrived_at = $1 WHERE id = $2 AND arrived_at IS NULL"
    }

    /// What `analyzeTrip` needs of completed leg `$1` (see `TripStore.legContext(id:)`).
    enum LegContext: PreparedText {
        static let name = "functions_trips_leg_context_v2"
        /// The drive ends at ``M0028DriveLocations/driveEnd`` or now, whichever is first: the window the webhook
        /// intake keeps locations for (``WebhookStatements/Inbox``).
        static let sql = """
            SELECT l.id, l.order_id, l.leg, l.device_id, u.id, l.created_at,
                   least(\(M0028DriveLocations.driveEnd)(l.created_at, l.completion_requested_at, l.completed_at),
                         greatest(l.created_at, now())),
                   l.distance,
                   o.pickup_lat, o.pickup_lng, o.pickup_address, o.dropoff_lat, o.dropoff_lng, o.dropoff_address
            FROM order_legs l
            JOIN users u ON u.device_id = l.device_id AND u.role = 'driver'
            LEFT JOIN orders o ON o.id = l.order_id
            WHERE l.id = $1
            """
    }

    /// The locations device `$1` reported between `$2` and `$3` (see `TripStore.locations(deviceID:from:to:)`).
    enum TripLocations: PreparedText {
        static let name = "functions_trips_locations_v1"
        static let sql = """
            SELECT recorded_at, latitude, longitude,
                   CASE WHEN jsonb_typeof(payload -> 'data' -> 'speed') = 'number'
                        THEN (payload -> 'data' ->> 'speed')::double precision END,
                   CASE WHEN jsonb_typeof(payload -> 'data' -> 'bearing') = 'number'
                        THEN (payload -> 'data' ->> 'bearing')::double precision END,
                   CASE WHEN jsonb_typeof(payload -> 'data' -> 'posted_limit_kmh') = 'number'
                        THEN (payload -> 'data' ->> 'posted_limit_kmh')::double precision END
            FROM webhook_events
            WHERE type = 'location' AND device_id = $1 AND received_at BETWEEN $2 AND $3
              AND latitude IS NOT NULL AND longitude IS NOT NULL AND recorded_at IS NOT NULL
            ORDER BY recorded_at, id
            """
    }

    /// Order `$1`, still `NEW`, starts its next dispatch round; its number comes back.
    enum StartDispatchRound: PreparedText {
        static let name = "functions_store_start_dispatch_round_v1"
        static let sql = """
            UPDATE orders SET dispatch_round = dispatch_round + 1
            WHERE id = $1 AND status = 'NEW' RETURNING dispatch_round
            """
    }

    /// Order `$1` is offered to the drivers `$2` (ranked in that order) in round `$3` (`0`: the order's current
    /// round, at least 1), each offer open for `$4` seconds; a driver already offered it keeps their offer.
    enum RecordOffers: PreparedText {
        static let name = "functions_store_record_offers_v1"
        static let sql = """
            INSERT INTO order_offers (order_id, driver_id, rank, round, expires_at)
            SELECT o.id, driver, rank::int, coalesce(nullif($3::int, 0), greatest(o.dispatch_round, 1)),
                   now() + make_interval(secs => $4)
            FROM orders o, unnest($2::uuid[]) WITH ORDINALITY AS t(driver, rank)
            WHERE o.id = $1
            ON CONFLICT (order_id, driver_id) DO NOTHING
            """
    }

    /// Leg `$4` completed with its trip's summary: `$1` metres, `$2` seconds, route `$3` (JSON).
    enum RecordLegSummary: PreparedText {
        static let name = "functions_store_record_leg_summary_v1"
        static let sql = """
            UPDATE order_legs SET distance = $1, duration = $2, route = $3::jsonb, status = 'completed',
                completed_at = coalesce(completed_at, now())
            WHERE id = $4
            """
    }
}
