import TriggerRuntime

/// The two functions whose statements PostgreSQL planned on every call plan once per connection.
///
/// **Why.** In the 22nd session's 10-minute city (10,000 drivers, 20 bookings a second) planning was 26% of
/// PostgreSQL's CPU (perf). `pg_stat_statements` with `track = all` and `track_planning` showed two nested
/// statements planned at every call:
/// - the body of `order_event_documents` (``M0016OrderEvents``), a SQL function: PostgreSQL plans a SQL function's
///   statements anew for every query that calls it unless it can inline them, and a body with subqueries it cannot.
///   Every order status, leg change and offer builds its event's documents with it: 64,833 plans in 4.5 minutes of
///   the rides at 0.28 ms (18 s), more than its runs took (14 s). As PL/pgSQL its statement is prepared once per
///   connection, and the plan cache keeps the generic plan (key lookups cost the same either way);
/// - the walk of `nearest_dispatchable_drivers` (``M0018BoundedDriverSearch``), planned custom at every search
///   (4,415 plans at 1.15 ms, 5.1 s, against 9.1 s to run): with the coordinates known the custom plan looked
///   cheaper, so the plan cache never switched, and each custom plan also ran earthdistance's SQL functions to fold
///   the constants. The generic plan walks the same partial GiST index nearest first (`PositionEarthTests`
///   explains it; on that run's database, 10,000 drivers, the same 10 rows and 21 buffers against 39);
///   `plan_cache_mode = force_generic_plan` keeps it.
enum M0024CachedPlans {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0024_cached_plans",
        statements: [
            """
            CREATE OR REPLACE FUNCTION order_event_documents(o orders) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
            BEGIN
                RETURN jsonb_build_object(
                    'order', to_jsonb(o),
                    'driver', (SELECT to_jsonb(d) FROM users d WHERE d.id = o.driver_id),
                    'legs', coalesce((SELECT jsonb_agg(to_jsonb(l) ORDER BY l.leg DESC)
                                      FROM order_legs l WHERE l.order_id = o.id), '[]'::jsonb));
            END
            $$
            """,
            """
            ALTER FUNCTION nearest_dispatchable_drivers(double precision, double precision, double precision,
                                                        double precision, uuid, integer)
                SET plan_cache_mode = force_generic_plan
            """,
        ]
    )
}
