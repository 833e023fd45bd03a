import TriggerRuntime

/// Dispatch in time: offers that expire or are declined, rounds, a rider's single open order, drivers who are off
/// until they go online, and the device status HyperTrack reports.
///
/// - `users.available` now defaults to `false`: a driver who just registered is not offered anything until they go
///   online (`PUT /v1/drivers/me/availability`). Existing drivers keep their value.
/// - `users.device_status` is the last `device_status` webhook's value (`active`, `inactive`, `disconnected`), with
///   its time so an older event never overwrites a newer one. `NULL` (never reported) counts as tracking: HyperTrack
///   may not send a status for a device that has been active all along, and guessing "not tracking" would strand
///   every rider.
/// - `order_offers` gains the round that made the offer, when it expires and when it was declined. Offers made before
///   this migration expire at once (they were made without a deadline).
/// - `orders.dispatch_round` counts the rounds dispatch ran; `no_driver_found` cancellations have no `cancelled_by`.
/// - At most one open order per rider (`orders_rider_id_open_idx`). A database that already holds several has the
///   older ones cancelled with reason `superseded` first, so the index can be built.
enum M0007Dispatch {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0007_dispatch",
        statements: [
            "ALTER TABLE users ALTER COLUMN available SET DEFAULT false",
            """
            ALTER TABLE users
                ADD COLUMN device_status text CHECK (device_status IN ('active', 'inactive', 'disconnected')),
                ADD COLUMN device_status_at timestamptz
            """,
            """
            ALTER TABLE order_offers
                ADD COLUMN round int NOT NULL DEFAULT 1 CHECK (round >= 1),
                ADD COLUMN expires_at timestamptz,
                ADD COLUMN declined_at timestamptz
            """,
            "UPDATE order_offers SET expires_at = offered_at",
            "ALTER TABLE order_offers ALTER COLUMN expires_at SET NOT NULL",
            "ALTER TABLE orders ADD COLUMN dispatch_round int NOT NULL DEFAULT 0 CHECK (dispatch_round >= 0)",
            """
            UPDATE orders o SET status = 'CANCELLED', cancellation_reason = 'superseded'
            WHERE o.status NOT IN ('CANCELLED', 'COMPLETED') AND EXISTS (
                SELECT 1 FROM orders n
                WHERE n.rider_id = o.rider_id AND n.status NOT IN ('CANCELLED', 'COMPLETED')
                  AND (n.created_at, n.id) > (o.created_at, o.id))
            """,
            """
            CREATE UNIQUE INDEX orders_rider_id_open_idx ON orders (rider_id)
                WHERE status NOT IN ('CANCELLED', 'COMPLETED')
            """,
            // Which NEW orders are near a driver who comes online: the pickup's earth position.
            """
            CREATE INDEX orders_new_pickup_idx ON orders USING gist (ll_to_earth(pickup_lat, pickup_lng))
                WHERE status = 'NEW'
            """,
        ]
    )
}
