import PostgresNIO

/// The indexed nearest-driver query shared by `dispatchOrder` and `GET /v1/drivers/nearby`.
enum DriverSearchSQL {
    /// Dispatchable drivers (``DriverSearch``) within `radius` metres of a point, nearest first:
    /// `(driver_id uuid, lat, lng, distance double precision)`.
    static func nearest(
        latitude: Double,
        longitude: Double,
        radius: Double,
        limit: Int,
        search: DriverSearch
    ) -> PostgresQuery {
        """
        SELECT p.driver_id, p.lat, p.lng,
               earth_distance(ll_to_earth(\(latitude), \(longitude)), ll_to_earth(p.lat, p.lng)) AS distance
        FROM driver_positions p
        JOIN users u ON u.id = p.driver_id
        WHERE \(unescaped: Self.dispatchable("u"))
          AND p.recorded_at >= now() - make_interval(secs => \(search.maxPositionAge.seconds))
          AND earth_box(ll_to_earth(\(latitude), \(longitude)), \(radius)) @> ll_to_earth(p.lat, p.lng)
          AND earth_distance(ll_to_earth(\(latitude), \(longitude)), ll_to_earth(p.lat, p.lng)) <= \(radius)
          AND NOT EXISTS (
              SELECT 1 FROM order_offers f WHERE f.order_id = \(search.excludingOffersOf) AND f.driver_id = u.id)
        ORDER BY distance, p.driver_id
        LIMIT \(limit)
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
