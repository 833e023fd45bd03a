import TriggerRuntime

/// The legs by device and drive end, so the intake asks each event's device whether a drive reads it.
///
/// **Why.** The inbox statement of ``M0028DriveLocations`` read the open legs and the active orders once a delivery
/// and hashed them: in a city's young database (the 4,000-ride runs) a third of the rides are in flight, so the
/// planner read both tables whole for every delivery of 500 events (on the 31st session's T6 mid-run: 1,457 of
/// 8,000 legs open, 54 ms of an 81 ms call). The intake's cost grew with the rides in flight. Now the statement
/// (``WebhookStatements/Inbox``, v4) probes, per known device: its driver's active order (the unique partial index
/// `orders_driver_id_active_idx`), then, only when there is none, this index for a leg whose drive has not ended.
/// Two index probes an event, whatever the city holds.
///
/// Additive, for a rolling upgrade: the previous release's statement keeps its plan on `order_legs_drive_end_idx`,
/// which stays until a release no process of which reads it.
enum M0029DeviceDriveEnds {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0029_device_drive_ends",
        statements: [
            """
            CREATE INDEX order_legs_device_drive_end_idx
                ON order_legs (device_id, \(M0028DriveLocations.driveEnd)(created_at, completion_requested_at,
                                                                         completed_at))
            """,
            "ANALYZE order_legs",
        ]
    )
}
