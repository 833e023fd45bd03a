import TriggerRuntime

/// The devices of a delivery whose locations a drive reads, asked per device by index probes in a function planned
/// for each delivery.
///
/// **Why.** The inbox statement of ``M0028DriveLocations`` read the open legs and the active orders once a delivery
/// and hashed them: in a city's young database (the 4,000-ride runs) a third of the rides are in flight, so the
/// planner read both tables whole for every delivery of 500 events (on the 31st session's T6 mid-run: 1,457 of
/// 8,000 legs open, 54 ms of an 81 ms call). The intake's cost grew with the rides in flight. Now
/// ``deviceFunction`` answers for a delivery's location devices with, per device: whether it is known (its user),
/// its driver's active order (the unique partial index `orders_driver_id_active_idx`) and, only when there is none
/// (`OR` stops at its first true arm), a leg whose drive has not ended (`order_legs_device_drive_end_idx`). Three
/// probes a device at most, whatever the city holds; every probe a scalar subquery with `LIMIT 1` (asked as
/// `EXISTS`, the planner turned each into a hashed subplan reading the table whole).
///
/// **Why a function.** The same probes written into the inbox statement (32nd session, N1) were planned once per
/// pooled connection (the intake runs its generic plan), and a connection that planned while `order_legs` was young
/// kept a sequential scan of it for every event until autovacuum's next `ANALYZE`: 108,211 scans, 17 million rows
/// in one 4,000-ride run, which fell behind (3,734 rides of 4,000 by the deadline). Turning sequential scans off in
/// the intake's transaction instead (N2) reached the plans of the triggers its writes fire: the runtime's capture
/// trigger, planned inside it, ran 89 ms a row, 48 s for a delivery of device statuses, and no ride finished. A SQL
/// function with a `SET` clause is not inlined: its body is planned at each call, once a delivery, on the tables as
/// they are, and the setting holds only while it runs, where no trigger fires.
///
/// Additive, for a rolling upgrade: the previous release's statement keeps its plan on `order_legs_drive_end_idx`,
/// which stays until no running release reads it.
enum M0029DeviceDriveEnds {
    /// The function's name: `(text[]) → SETOF text`, the given devices whose locations are kept.
    static let deviceFunction = "drive_location_devices"

    /// The function's body, its one parameter `$1` (the delivery's location devices): the devices that are unknown,
    /// whose driver has an active order, or that have a leg whose drive has not ended at `now()`.
    static let body = Self.body(at: "now()")

    /// The body with the instant the drives are compared with (``M0031WebhookReceipts`` passes the receipt's).
    static func body(at instant: String) -> String {
        let end = "\(M0028DriveLocations.driveEnd)(l.created_at, l.completion_requested_at, l.completed_at)"
        return """
        SELECT d.device_id FROM unnest($1::text[]) AS d(device_id)
        LEFT JOIN LATERAL (SELECT u.id FROM users u WHERE u.device_id = d.device_id LIMIT 1) AS driver ON true
        WHERE driver.id IS NULL
           OR (SELECT true FROM orders o
               WHERE o.driver_id = driver.id AND o.status NOT IN ('NEW', 'COMPLETED', 'CANCELLED') LIMIT 1)
           OR (SELECT true FROM order_legs l
               WHERE l.device_id = d.device_id
                 AND \(end) >= \(instant)
               LIMIT 1)
        """
    }

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0029_device_drive_ends",
        statements: [
            """
            CREATE INDEX order_legs_device_drive_end_idx
                ON order_legs (device_id, \(M0028DriveLocations.driveEnd)(created_at, completion_requested_at,
                                                                         completed_at))
            """,
            """
            CREATE FUNCTION \(Self.deviceFunction)(devices text[]) RETURNS SETOF text
            LANGUAGE sql STABLE PARALLEL SAFE
            SET enable_seqscan = off
            AS $function$
            \(Self.body)
            $function$
            """,
            "ANALYZE order_legs",
        ]
    )
}
