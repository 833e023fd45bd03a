import TriggerRuntime

/// The two GiST indexes of points on the earth (free drivers' positions, waiting orders' pickups) are built on
/// `position_earth(lat, lng)`, a function whose body PostgreSQL parses once, at its creation, instead of
/// earthdistance's `ll_to_earth`, whose body is text parsed again wherever it is inlined.
///
/// **Why.** PostgreSQL inlines an index's expression when it loads the index, and some of its own work runs with an
/// empty `search_path`: autovacuum's `ANALYZE`, `pg_restore` creating the indexes. There `ll_to_earth`'s body
/// (`SELECT cube(cube(cube(earth()*...)))::earth`) cannot find the `earth` type: every automatic analysis of
/// `orders` and `driver_positions` failed (`ERROR: type "earth" does not exist ... SQL function "ll_to_earth"
/// during inlining`, once a minute per table in the 20th session's chaos run's log), so the two busiest tables
/// never had statistics, and a restored dump would have lost both indexes. `position_earth` has a SQL-standard body
/// (`RETURN ...`): stored as a parse tree that names the `cube` functions and the `earth` type by their ids, so it
/// means the same under any `search_path`; the one function it calls by text, earthdistance's `earth()`, is a
/// constant (`SELECT '6378168'::float8`) that any `search_path` parses. The formula is `ll_to_earth`'s.
///
/// The search function (`nearest_dispatchable_drivers`) and the waiting-orders query use `position_earth` where
/// they must match an index's expression.
enum M0023PositionEarth {
    /// The function of the indexes' expressions.
    static let function = "position_earth"

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0023_position_earth",
        statements: [
            """
            CREATE FUNCTION position_earth(lat double precision, lng double precision) RETURNS earth
                LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
                RETURN cube(cube(cube(earth() * cos(radians(lat)) * cos(radians(lng))),
                                 earth() * cos(radians(lat)) * sin(radians(lng))),
                            earth() * sin(radians(lat)))::earth
            """,
            "DROP INDEX driver_positions_free_earth_idx",
            """
            CREATE INDEX driver_positions_free_earth_idx ON driver_positions USING gist (position_earth(lat, lng))
                WHERE online AND NOT busy
            """,
            "DROP INDEX orders_new_pickup_idx",
            """
            CREATE INDEX orders_new_pickup_idx ON orders USING gist (position_earth(pickup_lat, pickup_lng))
                WHERE status = 'NEW'
            """,
            M0018BoundedDriverSearch.searchFunction(
                candidates: M0021FreeDriverIndex.candidates(earth: Self.function), earth: Self.function),
        ]
    )
}
