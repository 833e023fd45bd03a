import PostgresNIO

/// The indexed nearest-driver query shared by `dispatchOrder` and `GET /v1/drivers/nearby`.
enum DriverSearchSQL {
    /// Dispatchable drivers (``DriverSearch``) within `radius` metres of a point, nearest first:
    /// `(driver_id uuid, lat, lng, distance double precision)`. One index scan that stops at the `limit`-th driver
    /// (``M0017NearestDrivers``, whose function repeats ``dispatchable(_:)``'s condition: a test checks they agree).
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
