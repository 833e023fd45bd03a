import PostgresNIO

/// The indexed nearest-driver query shared by `dispatchOrder` and `GET /v1/drivers/nearby`.
enum DriverSearchSQL {
    /// Available drivers not on an active order within `radius` metres of a point, nearest first:
    /// `(driver_id uuid, lat, lng, distance double precision)`.
    static func nearest(latitude: Double, longitude: Double, radius: Double, limit: Int) -> PostgresQuery {
        """
        SELECT p.driver_id, p.lat, p.lng,
               earth_distance(ll_to_earth(\(latitude), \(longitude)), ll_to_earth(p.lat, p.lng)) AS distance
        FROM driver_positions p
        JOIN users u ON u.id = p.driver_id
        WHERE u.role = 'driver' AND u.available
          AND earth_box(ll_to_earth(\(latitude), \(longitude)), \(radius)) @> ll_to_earth(p.lat, p.lng)
          AND earth_distance(ll_to_earth(\(latitude), \(longitude)), ll_to_earth(p.lat, p.lng)) <= \(radius)
          AND NOT EXISTS (
              SELECT 1 FROM orders o
              WHERE o.driver_id = u.id AND o.status NOT IN ('NEW', 'COMPLETED', 'CANCELLED')
          )
        ORDER BY distance, p.driver_id
        LIMIT \(limit)
        """
    }
}
