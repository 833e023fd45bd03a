import TriggerRuntime

/// Drivers' analysed trips (one per ride leg), and the index `analyzeTrip` reads a drive's locations through.
///
/// A trip stores only its simplified path (`path`, Douglas-Peucker at 5 m), never the raw locations: those stay in
/// the webhook inbox, where they arrived. The location path of the webhooks writes nothing new for trips (the
/// inbox insert was already there), so it gains no lock on a shared row; the new partial index only costs the
/// location inserts an index entry.
///
/// `feedback` is the driver's "this was not me driving" mark; a marked trip leaves the score and the program.
enum M0008DriverTrips {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0008_driver_trips",
        statements: [
            """
            CREATE TABLE driver_trips (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                driver_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                leg_id uuid UNIQUE,
                order_id uuid,
                drive_type text NOT NULL CHECK (drive_type IN ('pickup', 'dropoff', 'free')),
                vehicle_type text NOT NULL DEFAULT 'car',
                started_at timestamptz NOT NULL,
                ended_at timestamptz NOT NULL CHECK (ended_at >= started_at),
                distance double precision NOT NULL CHECK (distance >= 0),
                duration double precision NOT NULL CHECK (duration >= 0),
                start_lat double precision,
                start_lng double precision,
                start_address text,
                end_lat double precision,
                end_lng double precision,
                end_address text,
                point_count int NOT NULL,
                score int CHECK (score BETWEEN 0 AND 100),
                ratings jsonb NOT NULL,
                events jsonb NOT NULL,
                path jsonb NOT NULL,
                feedback text CHECK (feedback IN ('not_driving', 'not_a_trip', 'passenger')),
                feedback_at timestamptz,
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX driver_trips_driver_id_started_at_idx ON driver_trips (driver_id, started_at DESC, id DESC)",
            """
            CREATE INDEX webhook_events_device_id_received_at_idx ON webhook_events (device_id, received_at)
                WHERE type = 'location'
            """,
        ]
    )
}
