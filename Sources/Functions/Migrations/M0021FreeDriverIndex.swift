import TriggerRuntime

/// The nearest-driver search walks an index of the positions of drivers who may be free, not of every driver.
///
/// **Why.** In a busy city most drivers are on rides. ``M0018BoundedDriverSearch``'s walk checked each position in
/// distance order against `users` and `orders` and skipped the busy ones; when every driver near a pickup was busy
/// it walked its 500 positions to offer nothing, and every waiting order searched again each round. It was
/// PostgreSQL's largest statement in every run of the 18th session (8.5-41.5 ms a search, up to 1,707 s of a
/// 20-minute run). Now `driver_positions` carries two facts copied from their sources by triggers, and the GiST
/// index holds only the rows where both say "free":
/// - `online`: the driver's `users` row is a driver, `available`, and tracking (`device_status` null or `active`),
///   copied from that row by an `AFTER UPDATE` trigger on `users`;
/// - `busy`: the driver has an active order (not `NEW`, `COMPLETED` or `CANCELLED`), set when an order becomes
///   active for the driver and cleared when it stops being (or is deleted), by triggers on `orders`.
///
/// **The copies are a hint; the walk still checks each driver** with ``DriverSearchSQL/dispatchable(_:)``, so a
/// copy that says "free" wrongly costs one skipped row, as every busy driver did before. A copy that said "not free"
/// wrongly would hide a driver from dispatch, so each copy is written only in ways that cannot err that way:
/// - each trigger writes the value of its own row's transition (never a value recomputed from another table, which
///   a concurrent uncommitted transaction would make stale);
/// - two writes of one copy are ordered by their source: `users` updates by the row's lock; an order becoming active
///   for a driver waits on the unique index `orders_driver_id_active_idx` for the transaction that ends the
///   driver's previous active order, so the clearing `busy` commits before the setting one;
/// - a new position row starts as free (`online` true, `busy` false), whatever its driver's state: the trigger of
///   a change committing beside the insert cannot see the uncommitted row, so a value computed at the insert could
///   miss it. A driver whose first position arrives while offline or on a ride is a row the walk skips until their
///   next change.
///
/// Measured on a replay database (10,000 drivers within 3 km of the centre, positions fresh, 9,500 on rides;
/// pgbench, one client, searches at random points within the 3 km, radius 5 km, limit 5; 0018's function and this
/// one side by side, each on its own index, three rounds of 15 s alternated, medians): 500 drivers free 4.40 → 1.05 ms
/// a search; 50 free 12.9 → 0.99 ms; none free 12.4 → 0.36 ms; every driver free 1.35 → 1.32 ms (no change). The
/// intake's upsert of 400 moving drivers (rolled back) 28.9 → 20.4 ms: a busy driver's move no longer writes a GiST
/// entry.
///
/// ``M0022FreeDriverCopiesWithoutWaiting`` changed how the writes that only narrow the index take the row (they give
/// up when a delivery holds it, leaving the copy "free"): measured end to end, waiting for the intake's locks made
/// accepts three times slower.
///
/// Lock order: every writer of a driver's rows takes `users` before `driver_positions` (an availability change,
/// the intake's device statuses, now applied before its positions) or an order before `driver_positions` (order
/// transitions); no transaction takes a position row and then the driver's `users` row or order.
enum M0021FreeDriverIndex {
    /// The condition on `orders` for an order that keeps its driver busy (the unique index's).
    static let active = "status NOT IN ('NEW', 'COMPLETED', 'CANCELLED')"

    /// The search's rows: the free drivers' index, in the pickup's bounding box, a point on the earth being
    /// `earth(lat, lng)` (``M0023PositionEarth`` changes it).
    static func candidates(earth: String = "ll_to_earth") -> String {
        """
        p.online AND NOT p.busy
                      AND earth_box(\(earth)(p_lat, p_lng), p_radius) @> \(earth)(p.lat, p.lng)
        """
    }

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0021_free_driver_index",
        statements: [
            """
            ALTER TABLE driver_positions
                ADD COLUMN online boolean NOT NULL DEFAULT true,
                ADD COLUMN busy boolean NOT NULL DEFAULT false
            """,
            """
            CREATE FUNCTION driver_positions_online_from_user() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                now_online boolean := NEW.role = 'driver' AND NEW.available
                    AND (NEW.device_status IS NULL OR NEW.device_status = 'active');
            BEGIN
                UPDATE driver_positions SET online = now_online
                WHERE driver_id = NEW.id AND online IS DISTINCT FROM now_online;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER driver_positions_online AFTER UPDATE OF role, available, device_status ON users
                FOR EACH ROW
                WHEN (OLD.role IS DISTINCT FROM NEW.role OR OLD.available IS DISTINCT FROM NEW.available
                      OR OLD.device_status IS DISTINCT FROM NEW.device_status)
                EXECUTE FUNCTION driver_positions_online_from_user()
            """,
            """
            CREATE FUNCTION driver_positions_busy_from_order() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF OLD.driver_id IS NOT NULL AND OLD.\(active) THEN
                    UPDATE driver_positions SET busy = false WHERE driver_id = OLD.driver_id AND busy;
                END IF;
                IF TG_OP = 'UPDATE' AND NEW.driver_id IS NOT NULL AND NEW.\(active) THEN
                    UPDATE driver_positions SET busy = true WHERE driver_id = NEW.driver_id AND NOT busy;
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER driver_positions_busy AFTER UPDATE OF status, driver_id ON orders
                FOR EACH ROW
                WHEN ((OLD.\(active)) IS DISTINCT FROM (NEW.\(active))
                      OR OLD.driver_id IS DISTINCT FROM NEW.driver_id)
                EXECUTE FUNCTION driver_positions_busy_from_order()
            """,
            """
            CREATE TRIGGER driver_positions_busy_deleted AFTER DELETE ON orders
                FOR EACH ROW WHEN (OLD.driver_id IS NOT NULL AND OLD.\(active))
                EXECUTE FUNCTION driver_positions_busy_from_order()
            """,
            // The triggers above hold `users` and `orders` against writes until this migration commits, so the copy
            // below cannot miss a change.
            """
            UPDATE driver_positions p
            SET online = u.role = 'driver' AND u.available AND (u.device_status IS NULL OR u.device_status = 'active'),
                busy = EXISTS (SELECT 1 FROM orders o WHERE o.driver_id = p.driver_id AND o.\(active))
            FROM users u WHERE u.id = p.driver_id
            """,
            "DROP INDEX driver_positions_earth_idx",
            """
            CREATE INDEX driver_positions_free_earth_idx ON driver_positions USING gist (ll_to_earth(lat, lng))
                WHERE online AND NOT busy
            """,
            M0018BoundedDriverSearch.searchFunction(candidates: Self.candidates()),
        ]
    )
}
