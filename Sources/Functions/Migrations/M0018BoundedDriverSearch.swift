import TriggerRuntime

/// The nearest-driver search looks at the ``scanned`` nearest positions at most.
///
/// **Why.** Migration 0017's scan stops at the `n`-th driver who qualifies; when none does (every driver near the
/// pickup on a ride), it walks every position in reach, checking each driver's orders. In the 10-minute,
/// 10,000-driver simulation (20 bookings a second) the drivers were all busy after a few minutes; thousands of
/// orders waited, each searching again every round, at 24 ms a search over 10,000 positions (`pg_stat_statements`:
/// 556 s of PostgreSQL's time in 15 minutes, its largest cost by ten times). PostgreSQL saturated, webhooks were
/// answered slowly, the emulator's clock (which waits for them) slowed to real time, rides took longer, more
/// orders waited: a spiral. Now one index scan takes the ``scanned`` nearest positions (nearest first, as before)
/// and only those are checked, so a search costs the same whether drivers are free or not.
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
            """
            CREATE OR REPLACE FUNCTION nearest_dispatchable_drivers(
                p_lat double precision, p_lng double precision, p_radius double precision,
                p_max_age_s double precision, p_excluding_order uuid, p_limit integer)
            RETURNS TABLE (driver_id uuid, lat double precision, lng double precision, distance double precision)
            LANGUAGE sql STABLE
            SET enable_bitmapscan = off
            AS $$
                SELECT c.driver_id, c.lat, c.lng, c.distance FROM (
                    SELECT p.driver_id, p.lat, p.lng, p.recorded_at,
                           earth_distance(ll_to_earth(p_lat, p_lng), ll_to_earth(p.lat, p.lng)) AS distance
                    FROM driver_positions p
                    WHERE earth_box(ll_to_earth(p_lat, p_lng), p_radius) @> ll_to_earth(p.lat, p.lng)
                    ORDER BY ll_to_earth(p.lat, p.lng) <-> ll_to_earth(p_lat, p_lng)
                    LIMIT \(scanned)
                ) c
                JOIN users u ON u.id = c.driver_id
                WHERE \(DriverSearchSQL.dispatchable("u"))
                  AND c.recorded_at >= now() - make_interval(secs => p_max_age_s)
                  AND c.distance <= p_radius
                  AND NOT EXISTS (
                      SELECT 1 FROM order_offers f WHERE f.order_id = p_excluding_order AND f.driver_id = u.id)
                ORDER BY c.distance, c.driver_id
                LIMIT p_limit
            $$
            """
        ]
    )
}
