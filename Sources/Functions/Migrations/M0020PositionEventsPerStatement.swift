import TriggerRuntime

/// The rider's `driver.position` events are found once per statement that moves drivers, not once per driver.
///
/// **Why.** The intake writes a delivery's positions in one upsert (about 400 drivers in the 10,000-driver city), and
/// `order_events_on_position()` ran for every row whose latitude or longitude changed: a plpgsql call and a lookup
/// of the driver's open order each, to find a ride for some of them. In the 18th session's 10-minute run, with
/// 10,000 rides in flight, nearly every driver moved, and the upsert was PostgreSQL's second largest statement (181
/// ms a delivery, 166 s of the run). Now two statement triggers hand the moved rows (the transition tables) to
/// `order_events_for_positions`, which joins them with the open orders once, throttles them in order id order, and
/// appends the events with one `INSERT` and one `NOTIFY`. What a rider receives is unchanged: an insert always
/// counts as a move, an update only when the latitude or longitude changed, at most one event a second per order
/// (`OrderSchemaTests` pins each).
///
/// Measured on that run's database at rest (4,699 open orders of 10,000 drivers; the intake's upsert of a delivery of
/// 400 drivers, in a rolled-back transaction, the two versions alternated, medians): every driver moving 79 → 68 ms
/// (six pairs), half of them 63 → 53 ms (five pairs). The statement's floor without any trigger was 28-40 ms.
enum M0020PositionEventsPerStatement {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0020_position_events_per_statement",
        statements: [
            """
            CREATE FUNCTION order_events_for_positions(moved driver_positions[]) RETURNS void
            LANGUAGE plpgsql AS $$
            DECLARE
                emitted int;
            BEGIN
                -- order_event_append's INSERT and NOTIFY, set-based.
                WITH open AS (
                    SELECT o.id, o.rider_id, m.driver_id, m.lat, m.lng, m.recorded_at
                    FROM unnest(moved) AS m JOIN orders o ON o.driver_id = m.driver_id
                    WHERE o.status NOT IN ('NEW', 'COMPLETED', 'CANCELLED')
                ),
                throttled AS (
                    INSERT INTO order_position_throttle AS t (order_id, emitted_at)
                    SELECT id, clock_timestamp() FROM open ORDER BY id
                    ON CONFLICT (order_id) DO UPDATE SET emitted_at = excluded.emitted_at
                        WHERE t.emitted_at <= excluded.emitted_at - interval '1 second'
                    RETURNING order_id
                )
                INSERT INTO order_events (order_id, kind, rider_id, driver_id, payload)
                SELECT p.id, 'driver.position', p.rider_id, p.driver_id,
                       jsonb_build_object('order_id', p.id, 'lat', p.lat, 'lng', p.lng, 'recorded_at', p.recorded_at)
                FROM open p JOIN throttled t ON t.order_id = p.id
                ORDER BY p.id;
                GET DIAGNOSTICS emitted = ROW_COUNT;
                IF emitted > 0 THEN
                    PERFORM pg_notify('\(OrderEventLog.channel)', '');
                END IF;
            END
            $$
            """,
            """
            CREATE FUNCTION order_events_on_positions() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    PERFORM order_events_for_positions(ARRAY(SELECT n::driver_positions FROM new_positions n));
                ELSE
                    PERFORM order_events_for_positions(ARRAY(
                        SELECT n::driver_positions FROM new_positions n JOIN old_positions o ON o.driver_id = n.driver_id
                        WHERE o.lat IS DISTINCT FROM n.lat OR o.lng IS DISTINCT FROM n.lng));
                END IF;
                RETURN NULL;
            END
            $$
            """,
            "DROP TRIGGER order_events_on_position_insert ON driver_positions",
            "DROP TRIGGER order_events_on_position_update ON driver_positions",
            "DROP FUNCTION order_events_on_position()",
            """
            CREATE TRIGGER order_events_on_positions_insert AFTER INSERT ON driver_positions
                REFERENCING NEW TABLE AS new_positions
                FOR EACH STATEMENT EXECUTE FUNCTION order_events_on_positions()
            """,
            """
            CREATE TRIGGER order_events_on_positions_update AFTER UPDATE ON driver_positions
                REFERENCING OLD TABLE AS old_positions NEW TABLE AS new_positions
                FOR EACH STATEMENT EXECUTE FUNCTION order_events_on_positions()
            """,
        ]
    )
}
