import PostgresNIO

/// The indexed nearest-driver query shared by `dispatchOrder` and `GET /v1/drivers/nearby`.
enum DriverSearchSQL {
    /// Dispatchable drivers (``DriverSearch``) within `radius` metres of a point, nearest first:
    /// `(driver_id uuid, lat, lng, distance double precision)`. One walk of the free drivers' index that stops at the
    /// `limit`-th driver or the 500th position (``M0021FreeDriverIndex``, ``M0018BoundedDriverSearch``; the function
    /// rechecks each driver with ``dispatchable(_:)``'s condition: a test checks they agree).
    ///
    /// The walk runs only when some position anywhere is fresh enough (`WHERE EXISTS`, a one-time filter
    /// PostgreSQL evaluates first). When none is (webhooks late or lost: every phone's position goes stale at once)
    /// every search would walk its 500 nearest positions to find nobody, and every waiting order searches again:
    /// in the 16th session's chaos run 70,361 such searches took 52.8 ms each, 3,714 s of PostgreSQL's time in
    /// twenty minutes, and the webhooks that would have freshened the positions waited behind them. Measured on
    /// that run's database afterwards (10,000 positions, pgbench, one client, three rounds alternated): all stale,
    /// 8.9 ms a search without the filter, 1.35 ms with it (a sequential scan that finds nothing); all fresh, the
    /// filter stops at the first row it reads (0.03 ms) and the two did not differ beyond noise.
    static func nearest(
        latitude: Double,
        longitude: Double,
        radius: Double,
        limit: Int,
        search: DriverSearch
    ) -> PostgresQuery {
        """
        SELECT driver_id, lat, lng, distance
        FROM nearest_dispatchable_drivers(\(latitude)::float8, \(longitude)::float8, \(radius)::float8,
                                          \(search.maxPositionAge.seconds)::float8, \(search.excludingOffersOf)::uuid,
                                          \(limit)::int)
        WHERE EXISTS (
            SELECT 1 FROM driver_positions p
            WHERE p.recorded_at >= now() - make_interval(secs => \(search.maxPositionAge.seconds)::float8))
        ORDER BY distance, driver_id
        """
    }

    /// The condition on a `users` row (aliased `alias`) for a driver dispatch may offer an order to, position aside:
    /// online, tracking, and not on an active order.
    static func dispatchable(_ alias: String) -> String {
        """
        \(alias).role = 'driver' AND \(alias).available
          AND (\(alias).device_status IS NULL OR \(alias).device_status = 'active')
          AND NOT EXISTS (
              SELECT 1 FROM orders o
              WHERE o.driver_id = \(alias).id AND o.status NOT IN ('NEW', 'COMPLETED', 'CANCELLED'))
        """
    }
}

extension Duration {
    /// Whole and fractional seconds, for SQL intervals.
    var seconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
