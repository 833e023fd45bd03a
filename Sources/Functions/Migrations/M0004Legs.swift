import TriggerRuntime

/// Order legs (one HyperTrack trip each) and the offers made to drivers.
///
/// Legs deliberately have no foreign key to `orders`: they outlive a deleted order so that its trips can still be
/// completed.
enum M0004Legs {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0004_order_legs_offers",
        statements: [
            """
            CREATE TABLE order_legs (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                order_id uuid NOT NULL,
                leg text NOT NULL CHECK (leg IN ('pickup', 'dropoff')),
                device_id text NOT NULL,
                trip_id text NOT NULL UNIQUE,
                share_url text,
                embed_url text,
                eta timestamptz,
                estimate_distance double precision,
                estimate_duration double precision,
                estimate_route jsonb,
                status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completing', 'completed')),
                arrived_at timestamptz,
                distance double precision,
                duration double precision,
                route jsonb,
                created_at timestamptz NOT NULL DEFAULT now(),
                completion_requested_at timestamptz,
                completed_at timestamptz,
                UNIQUE (order_id, leg)
            )
            """,
            """
            CREATE TABLE order_offers (
                order_id uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
                driver_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                rank int NOT NULL,
                offered_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (order_id, driver_id)
            )
            """,
            "CREATE INDEX order_offers_driver_id_idx ON order_offers (driver_id, offered_at DESC)",
        ]
    )
}
