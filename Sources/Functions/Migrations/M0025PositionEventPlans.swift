import TriggerRuntime

/// A write of `driver_positions` that moved nobody no longer runs the position events' statement, and the two
/// event functions whose statements were planned at nearly every call plan once per connection.
///
/// **Why.** Read from the 23rd session's 4,000-ride run (10,000 drivers, 20 bookings a second; `pg_stat_statements`
/// with `track = all` and `track_planning`, 7 minutes):
/// - `order_events_on_positions` (``M0020PositionEventsPerStatement``) is a statement trigger: it runs for every
///   `UPDATE` of `driver_positions`, including the availability and busy copies (``M0021FreeDriverIndex``), which
///   never move a driver. It called `order_events_for_positions` with an empty array 17,000 times of 17,870, and
///   that function's statement (the open orders, the throttle, the events' `INSERT`) was planned 16,179 times of
///   18,708 calls: 11.5 s of planning and 9.4 s of running, nearly all of it for no driver. The trigger now calls it
///   only when some driver moved.
/// - `order_events_for_positions`' statement planned custom (the moved drivers are one array parameter): its custom
///   plan read every active order (a sequential scan and a hash, 2.2 ms with 968 active orders, more as the city
///   grows); the generic plan probes `orders_driver_id_active_idx` for each moved driver.
/// - `order_event_documents` (``M0024CachedPlans``: PL/pgSQL so that its statement is cached) was still planned
///   56,364 times of 91,226 calls (16.3 s): its plans are invalidated whenever `users` or `order_legs` are analysed,
///   which autovacuum does often in a growing city, and each time the plan cache spent five custom plans before
///   considering the generic one. Its three key lookups plan the same either way.
///
/// `plan_cache_mode = force_generic_plan` as a function setting (as 0024 does for the search): the function's
/// statements use one plan per connection from the first call. A function with a setting costs a configuration
/// save and restore per call (microseconds) and is never inlined (neither is: both are PL/pgSQL).
enum M0025PositionEventPlans {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0025_position_event_plans",
        statements: [
            """
            CREATE OR REPLACE FUNCTION order_events_on_positions() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                moved driver_positions[];
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    moved := ARRAY(SELECT n::driver_positions FROM new_positions n);
                ELSE
                    moved := ARRAY(
                        SELECT n::driver_positions FROM new_positions n JOIN old_positions o ON o.driver_id = n.driver_id
                        WHERE o.lat IS DISTINCT FROM n.lat OR o.lng IS DISTINCT FROM n.lng);
                END IF;
                IF cardinality(moved) > 0 THEN
                    PERFORM order_events_for_positions(moved);
                END IF;
                RETURN NULL;
            END
            $$
            """,
            "ALTER FUNCTION order_events_for_positions(driver_positions[]) SET plan_cache_mode = force_generic_plan",
            "ALTER FUNCTION order_event_documents(orders) SET plan_cache_mode = force_generic_plan",
        ]
    )
}
