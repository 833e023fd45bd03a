import TriggerRuntime

/// The order event log the apps' server-sent-event streams read, and the share links of rides.
///
/// **Written by triggers, in the writer's transaction.** `order_events` rows are inserted by `AFTER` row triggers on
/// `orders` (a booking, each status change, the summary, the end of a dispatch round), `order_legs` (a leg created,
/// arrived at or completed: ETA, route, distance), `order_offers` (an offer made or declined) and `driver_positions`
/// (throttled: at most one position a second per order of a driver with an active order), and `order_shares` (a link
/// revoked or replaced, so its open share streams end). Triggers rather than
/// writes in `PostgresRideStore`: every writer of those tables (the API's pooled client, a function's delivery
/// transaction, the reconciler, an operator's manual fix) logs its change in its own transaction without knowing
/// about the log, and a rolled-back change logs nothing. Each trigger's work is one index lookup and one INSERT; the
/// position trigger (the hot path: every location webhook) first looks up the driver's active order through
/// `orders_driver_id_active_idx` and stops there for the many drivers without one.
///
/// **Ids are handed out after commit.** A `bigserial` is not commit-ordered: transaction A takes id 5, B takes 6
/// and commits first; a reader that delivered 6 and resumes with `id > 6` would never see 5. So the id a client sees
/// (`position`) is assigned by a sequencer (``OrderEventLog/sequence(connection:logger:)``) to events already
/// committed, in `id` order, under the row lock of `order_event_sequencer`: sequencers run one at a time and each
/// commits before the next starts, so positions become visible in increasing order and a reader that saw position
/// `p` will never later see a smaller one. Within one order the writers hold the order's row lock (or write after
/// it was released), so that order's events get increasing ids and therefore increasing positions.
///
/// **Retention.** `pruneOrderEvents` deletes events older than the retention and records the last position it
/// deleted in `order_event_sequencer.pruned_through`: a client resuming from before it is told to refetch.
///
/// **Shares.** `order_shares` holds one public link per order: the SHA-256 of its token (the token itself is shown
/// once), until revoked or until the configured time after the ride ended.
enum M0016OrderEvents {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0016_order_events",
        statements: [
            """
            CREATE TABLE order_events (
                id bigserial PRIMARY KEY,
                position bigint UNIQUE,
                order_id uuid NOT NULL,
                kind text NOT NULL CHECK (kind IN (\(kindList))),
                rider_id uuid,
                driver_id uuid,
                payload jsonb NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX order_events_unsequenced_idx ON order_events (id) WHERE position IS NULL",
            "CREATE INDEX order_events_order_idx ON order_events (order_id, position)",
            "CREATE INDEX order_events_rider_idx ON order_events (rider_id, position) WHERE rider_id IS NOT NULL",
            "CREATE INDEX order_events_driver_idx ON order_events (driver_id, position) WHERE driver_id IS NOT NULL",
            "CREATE INDEX order_events_created_at_idx ON order_events (created_at)",
            "ALTER TABLE order_events SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02)",
            """
            CREATE TABLE order_event_sequencer (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                last_position bigint NOT NULL DEFAULT 0,
                pruned_through bigint NOT NULL DEFAULT 0
            )
            """,
            "INSERT INTO order_event_sequencer DEFAULT VALUES",
            """
            CREATE TABLE order_position_throttle (
                order_id uuid PRIMARY KEY REFERENCES orders (id) ON DELETE CASCADE,
                emitted_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE order_shares (
                order_id uuid PRIMARY KEY REFERENCES orders (id) ON DELETE CASCADE,
                token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            // The three documents an order's view is built from (as `PostgresRideStore+Views` reads them).
            """
            CREATE FUNCTION order_event_documents(o orders) RETURNS jsonb LANGUAGE sql STABLE AS $$
                SELECT jsonb_build_object(
                    'order', to_jsonb(o),
                    'driver', (SELECT to_jsonb(d) FROM users d WHERE d.id = o.driver_id),
                    'legs', coalesce((SELECT jsonb_agg(to_jsonb(l) ORDER BY l.leg DESC)
                                      FROM order_legs l WHERE l.order_id = o.id), '[]'::jsonb))
            $$
            """,
            """
            CREATE FUNCTION order_event_append(p_order uuid, p_kind text, p_rider uuid, p_driver uuid, p_payload jsonb)
            RETURNS void LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO order_events (order_id, kind, rider_id, driver_id, payload)
                VALUES (p_order, p_kind, p_rider, p_driver, p_payload);
                PERFORM pg_notify('\(OrderEventLog.channel)', '');
            END
            $$
            """,
            """
            CREATE FUNCTION order_events_on_order() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                offer record;
                reason text;
            BEGIN
                IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
                    PERFORM order_event_append(NEW.id, 'order.status', NEW.rider_id, NEW.driver_id,
                                               order_event_documents(NEW));
                END IF;
                IF TG_OP = 'INSERT' THEN
                    RETURN NULL;
                END IF;
                IF NEW.summary IS DISTINCT FROM OLD.summary THEN
                    PERFORM order_event_append(NEW.id, 'order.summary', NEW.rider_id, NEW.driver_id,
                                               order_event_documents(NEW));
                END IF;
                -- Offers of the round that just ended: the next round started (they expired or were declined), a
                -- driver accepted (the others' offers are taken), or the order was cancelled.
                IF OLD.status = 'NEW' AND (NEW.status <> 'NEW' OR NEW.dispatch_round <> OLD.dispatch_round) THEN
                    reason := CASE NEW.status WHEN 'NEW' THEN 'expired' WHEN 'ACCEPTED' THEN 'taken'
                                              ELSE 'cancelled' END;
                    FOR offer IN
                        SELECT f.driver_id FROM order_offers f
                        WHERE f.order_id = NEW.id AND f.round = OLD.dispatch_round AND f.declined_at IS NULL
                          AND f.driver_id IS DISTINCT FROM NEW.driver_id
                    LOOP
                        PERFORM order_event_append(NEW.id, 'offer.closed', NULL, offer.driver_id,
                                                   jsonb_build_object('order_id', NEW.id, 'reason', reason));
                    END LOOP;
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER order_events_on_order AFTER INSERT OR UPDATE ON orders
                FOR EACH ROW EXECUTE FUNCTION order_events_on_order()
            """,
            """
            CREATE FUNCTION order_events_on_leg() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                o orders;
            BEGIN
                IF TG_OP = 'UPDATE' AND (NEW.status, NEW.eta, NEW.arrived_at, NEW.distance, NEW.duration)
                    IS NOT DISTINCT FROM (OLD.status, OLD.eta, OLD.arrived_at, OLD.distance, OLD.duration) THEN
                    RETURN NULL;
                END IF;
                SELECT * INTO o FROM orders WHERE id = NEW.order_id;
                IF FOUND THEN
                    PERFORM order_event_append(o.id, 'order.legs', o.rider_id, o.driver_id, order_event_documents(o));
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER order_events_on_leg AFTER INSERT OR UPDATE ON order_legs
                FOR EACH ROW EXECUTE FUNCTION order_events_on_leg()
            """,
            """
            CREATE FUNCTION order_events_on_offer() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                o orders;
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    SELECT * INTO o FROM orders WHERE id = NEW.order_id;
                    PERFORM order_event_append(NEW.order_id, 'offer.new', NULL, NEW.driver_id,
                        order_event_documents(o) || jsonb_build_object('expires_at', NEW.expires_at));
                ELSIF NEW.declined_at IS NOT NULL AND OLD.declined_at IS NULL THEN
                    PERFORM order_event_append(NEW.order_id, 'offer.closed', NULL, NEW.driver_id,
                        jsonb_build_object('order_id', NEW.order_id, 'reason', 'declined'));
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER order_events_on_offer AFTER INSERT OR UPDATE ON order_offers
                FOR EACH ROW EXECUTE FUNCTION order_events_on_offer()
            """,
            """
            CREATE FUNCTION order_events_on_position() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                o record;
            BEGIN
                SELECT id, rider_id INTO o FROM orders
                WHERE driver_id = NEW.driver_id AND status NOT IN ('NEW', 'COMPLETED', 'CANCELLED');
                IF NOT FOUND THEN
                    RETURN NULL;
                END IF;
                INSERT INTO order_position_throttle AS t (order_id, emitted_at) VALUES (o.id, clock_timestamp())
                ON CONFLICT (order_id) DO UPDATE SET emitted_at = excluded.emitted_at
                    WHERE t.emitted_at <= excluded.emitted_at - interval '1 second';
                IF FOUND THEN
                    PERFORM order_event_append(o.id, 'driver.position', o.rider_id, NEW.driver_id,
                        jsonb_build_object('order_id', o.id, 'lat', NEW.lat, 'lng', NEW.lng,
                                           'recorded_at', NEW.recorded_at));
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER order_events_on_position AFTER INSERT OR UPDATE ON driver_positions
                FOR EACH ROW EXECUTE FUNCTION order_events_on_position()
            """,
            // A share link revoked or replaced: its open streams (in any process) end. Nobody else reads it.
            """
            CREATE FUNCTION order_events_on_share() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' OR NEW.token_hash IS DISTINCT FROM OLD.token_hash THEN
                    PERFORM order_event_append(OLD.order_id, 'share.revoked', NULL, NULL,
                                               jsonb_build_object('token_hash', OLD.token_hash));
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER order_events_on_share AFTER UPDATE OR DELETE ON order_shares
                FOR EACH ROW EXECUTE FUNCTION order_events_on_share()
            """,
        ]
    )

    private static var kindList: String {
        OrderEventKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}
