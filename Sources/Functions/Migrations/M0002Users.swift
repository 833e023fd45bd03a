import TriggerRuntime

/// Riders and drivers, and their API tokens (stored as SHA-256 hashes, never in clear).
enum M0002Users {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0002_users",
        statements: [
            """
            CREATE TABLE users (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                role text NOT NULL CHECK (role IN ('rider', 'driver')),
                name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
                phone text NOT NULL CHECK (length(phone) BETWEEN 3 AND 32),
                device_id text UNIQUE,
                car_model text,
                car_plate text,
                available boolean NOT NULL DEFAULT true,
                created_at timestamptz NOT NULL DEFAULT now(),
                CHECK ((role = 'driver') = (device_id IS NOT NULL)),
                CHECK (role = 'rider' OR (car_model IS NOT NULL AND car_plate IS NOT NULL))
            )
            """,
            """
            CREATE TABLE api_tokens (
                token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
                user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id)",
        ]
    )
}
