import TriggerRuntime

/// The inbox keeps the location events a driver's trip can read, not every location of every idle driver.
///
/// **Why.** A location event does two things: it moves its driver on the map (the intake's position upsert, which
/// needs no inbox row), and, received during a leg's drive, it is one of the points ``AnalyzeTrip`` builds the
/// driver's trip from (``StoreStatements/TripLocations``, the only reader of location rows). In a city most drivers
/// are idle: with 10,000 drivers and a few hundred rides in flight, nine rows in ten were written, indexed (six
/// entries, one of them a random content id), kept for the retention and deleted by ``PruneWebhookEvents`` for no
/// reader. The inbox insert was the intake's second statement (35 ms a delivery of 500 events in the 30th session's
/// runs) and it, its deletes and their vacuum were PostgreSQL's, the machine's limit.
///
/// **Which are kept** (``WebhookStatements/Inbox``): every event but a location of a known device that no drive can
/// read. A drive can read it when its device has a leg whose window (``driveEnd``) is still open at the intake's
/// `now()` (its `received_at`), or its driver has an active order (`ACCEPTED` to `REACHED_DROPOFF`): a leg is
/// recorded by a transaction that started after the accept committed, so an intake that cannot see the accept yet
/// received its events before any leg of that order began. Anything unsure is kept: an unknown device, an event
/// without a device, an order that may be starting.
///
/// **One window.** ``driveEnd`` is the leg's drive end as the trip reads it: `infinity` while neither its
/// completion was requested nor it completed, else the later of its creation and that moment. ``AnalyzeTrip`` reads
/// `least(end, now())` (``StoreStatements/LegContext``), and the intake keeps a location when some leg's end is at or
/// after its `now()`. The index on the end makes the legs still open one short range at its top, however many legs
/// the table holds; where they are a large share (a young database: a third of the 4,000-ride runs' legs), the
/// planner read the table instead (BENCHMARKS.md, 31st session), so the intake now asks each event's device
/// (``M0029DeviceDriveEnds``).
///
/// **Measured** (the statement alone, on the 31st session's 4,000-ride database: 14,000 users, 8,000 legs; a delivery
/// of 500 applied locations of random drivers, generic plan, rolled back, two rounds): 41 and 41 ms a delivery
/// writing all 500 rows (v2), 11.5-12 ms writing the 0-3 a drive reads (about 7 of them parsing the delivery's
/// JSON, which v2 paid too). A first form that asked whether each event's device was known with `NOT EXISTS` on
/// `users` ran as a hashed subplan reading all 14,000 users every delivery: 13-18 ms alone, and in a city run (T1)
/// 32 ms a delivery under load, nearly the old cost; it now probes `users` by device once per event.
///
/// Additive, for a rolling upgrade: the previous release's intake keeps every location event, which the new
/// release's prune deletes as before.
enum M0028DriveLocations {
    /// The SQL function's name: a leg's drive end from its three instants.
    static let driveEnd = "order_leg_drive_end"

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0028_drive_locations",
        statements: [
            """
            CREATE FUNCTION \(Self.driveEnd)(created_at timestamptz, completion_requested_at timestamptz,
                                             completed_at timestamptz)
            RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT CASE WHEN completion_requested_at IS NULL AND completed_at IS NULL THEN 'infinity'::timestamptz
                            ELSE greatest(created_at, coalesce(completion_requested_at, completed_at)) END
            $$
            """,
            """
            CREATE INDEX order_legs_drive_end_idx
                ON order_legs (\(Self.driveEnd)(created_at, completion_requested_at, completed_at))
            """,
            // The expression's statistics now, not at autovacuum's next pass: without them the planner takes a third
            // of the legs for open and reads the table (seen on the replay database: a sequential scan of 8,000 legs,
            // 6-13 ms a delivery, against 0.2 ms through the index once analysed).
            "ANALYZE order_legs",
        ]
    )
}
