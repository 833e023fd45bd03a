import TriggerRuntime

/// The nearest-driver search looks at the ``scanned`` nearest positions at most.
///
/// **Why.** Migration 0017's scan stops at the `n`-th driver who qualifies; when none does (every driver near the
/// pickup on a ride), it walks every position in reach, checking each driver's orders. In the 10-minute,
/// 10,000-driver simulation (20 bookings a second) the drivers were all busy after a few minutes; thousands of
/// orders waited, each searching again every round, at 24 ms a search over 10,000 positions (`pg_stat_statements`:
/// 556 s of PostgreSQL's time in 15 minutes, its largest cost by ten times). PostgreSQL saturated, webhooks were
/// answered slowly, the emulator's clock (which waits for them) slowed to real time, rides took longer, more
/// orders waited: a spiral. Now the function walks the same nearest-first index scan and checks each driver in
/// turn, stopping at the `n`-th who qualifies (as before) or after the ``scanned`` nearest positions, whichever
/// comes first.
///
/// A loop, not SQL: the first try took the ``scanned`` nearest positions in a subquery and sorted the qualifying
/// ones by distance; the sort needs every row, so each search read all 500 (3,800 buffers; 62 ms mean in the
/// loaded 10-minute run, 739 s of PostgreSQL's 15 minutes) where the unbounded scan stopped after a handful. SQL
/// cannot say "stop at the n-th match or the 500th row" without such a sort; the loop stops at whichever comes
/// first. Rows come out nearest first; ``DriverSearchSQL/nearest(latitude:longitude:radius:limit:search:)`` orders
/// the few it gets by distance and driver id (ties).
///
/// Measured on the 10-minute run's database afterwards (10,000 positions, quiet machine, the three functions
/// alternated, mean of 100–200 searches around the centre, limit 5): with no driver free, 0017 70.7 ms, the
/// bounded SQL 6.8 ms, this loop 5.8 ms; with every driver free, 0.90 ms, 8.6 ms and 0.47 ms.
///
/// What it changes: an order is offered only to drivers among the ``scanned`` nearest to its pickup (in a city of
/// 10,000 drivers within 3 km, the nearest 500 are within about 700 m). When they are all busy the round offers
/// nothing and the next round looks again: a driver further away, whom a saturated city would have sent across
/// it, is not offered the ride. Where drivers are sparse, the nearest 500 reach as far as the round's radius.
enum M0018BoundedDriverSearch {
    /// The most positions a search looks at.
    static let scanned = DriverSearch.scannedPositions

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0018_bounded_driver_search",
        statements: [
            searchFunction(
                candidates: "earth_box(ll_to_earth(p_lat, p_lng), p_radius) @> ll_to_earth(p.lat, p.lng)"
            )
        ]
    )

    /// The search function walking the positions that match `candidates` (a condition on `driver_positions p`
    /// that must include the index's bounding box), nearest first, a position's point on the earth being
    /// `earth(lat, lng)` (the function of the index's expression); ``M0021FreeDriverIndex`` narrows it,
    /// ``M0023PositionEarth`` changes `earth`.
    static func searchFunction(candidates: String, earth: String = "ll_to_earth") -> String {
        """
        CREATE OR REPLACE FUNCTION nearest_dispatchable_drivers(
            p_lat double precision, p_lng double precision, p_radius double precision,
            p_max_age_s double precision, p_excluding_order uuid, p_limit integer)
        RETURNS TABLE (driver_id uuid, lat double precision, lng double precision, distance double precision)
        LANGUAGE plpgsql STABLE
        SET enable_bitmapscan = off
        AS $$
        DECLARE
            r record;
            scanned integer := 0;
            found integer := 0;
        BEGIN
            IF p_limit <= 0 THEN
                RETURN;
            END IF;
            FOR r IN
                SELECT p.driver_id, p.lat, p.lng, p.recorded_at,
                       earth_distance(\(earth)(p_lat, p_lng), \(earth)(p.lat, p.lng)) AS distance
                FROM driver_positions p
                WHERE \(candidates)
                ORDER BY \(earth)(p.lat, p.lng) <-> \(earth)(p_lat, p_lng)
            LOOP
                scanned := scanned + 1;
                EXIT WHEN scanned > \(Self.scanned);
                CONTINUE WHEN r.distance > p_radius
                    OR r.recorded_at < now() - make_interval(secs => p_max_age_s);
                CONTINUE WHEN NOT EXISTS (
                    SELECT 1 FROM users u WHERE u.id = r.driver_id AND \(DriverSearchSQL.dispatchable("u")));
                CONTINUE WHEN EXISTS (
                    SELECT 1 FROM order_offers f WHERE f.order_id = p_excluding_order AND f.driver_id = r.driver_id);
                driver_id := r.driver_id;
                lat := r.lat;
                lng := r.lng;
                distance := r.distance;
                RETURN NEXT;
                found := found + 1;
                EXIT WHEN found >= p_limit;
            END LOOP;
        END
        $$
        """
    }
}
