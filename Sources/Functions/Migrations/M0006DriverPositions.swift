import TriggerRuntime

/// Drivers' last known positions, indexed with `earthdistance` for the nearest-driver search.
enum M0006DriverPositions {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0006_driver_positions",
        statements: [
            """
            CREATE TABLE driver_positions (
                driver_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
                lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
                lng double precision NOT NULL CHECK (lng BETWEEN -180 AND 180),
                recorded_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX driver_positions_earth_idx ON driver_positions USING gist (ll_to_earth(lat, lng))",
        ]
    )
}
