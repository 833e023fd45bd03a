import TriggerRuntime

/// Accounts a real app can ship with (issue 17): sign-in by a one-time phone code, sessions of short-lived access
/// tokens and rotating refresh tokens, operators' API keys, and users whose profile is completed after sign-in.
///
/// - `auth_codes`: one row per code sent; the code itself is never stored, only HMAC-SHA256 keyed by a random
///   per-code salt (so two equal codes never share a hash and a leaked table cannot be matched against a
///   precomputed list of the 10⁶ codes). `attempts` counts tries; the rate limit counts rows of the last hour.
/// - `auth_sessions`: a session is a refresh-token family; revoking it revokes every token it issued at once.
/// - `auth_tokens`: access and refresh tokens, SHA-256 of 256 random bits (a lookup key needs no salt at that
///   entropy). A refresh token is rotated (`rotated_at`) on use; presenting a rotated one revokes its session.
/// - `operators`: API keys of the operational routes, SHA-256 like tokens, revoked by name.
/// - `users`: a user now exists from their first sign-in, before they have a name, a car or a device, so those
///   checks move to `PUT /v1/me` (a driver without a device is never dispatched: dispatch joins positions by device).
///   `phone_verified_at` marks the accounts whose phone was proven by a code; one verified account per phone and
///   role. The first sign-in adopts the oldest unverified account of that phone and role, so existing users keep
///   their orders and trips.
/// - `api_tokens` (the never-expiring tokens of `POST /v1/riders` and `/v1/drivers`, which are gone): they keep
///   working until 30 days after this migration, then their users sign in. Nothing creates new ones.
enum M0015Accounts {
    /// How long the tokens issued before this migration stay valid.
    static let legacyTokenLifetime = "30 days"

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0015_accounts",
        statements: [
            """
            DO $$
            DECLARE c record;
            BEGIN
                FOR c IN SELECT conname FROM pg_constraint
                    WHERE conrelid = 'users'::regclass AND contype = 'c'
                      AND (pg_get_constraintdef(oid) LIKE '%device_id%'
                           OR pg_get_constraintdef(oid) LIKE '%car_model%')
                LOOP
                    EXECUTE format('ALTER TABLE users DROP CONSTRAINT %I', c.conname);
                END LOOP;
            END $$
            """,
            "ALTER TABLE users ALTER COLUMN name DROP NOT NULL",
            "ALTER TABLE users ADD CONSTRAINT users_device_of_driver CHECK (role = 'driver' OR device_id IS NULL)",
            """
            ALTER TABLE users ADD CONSTRAINT users_car_of_driver
                CHECK ((car_model IS NULL) = (car_plate IS NULL) AND (role = 'driver' OR car_model IS NULL))
            """,
            "ALTER TABLE users ADD COLUMN phone_verified_at timestamptz",
            """
            CREATE UNIQUE INDEX users_role_phone_idx ON users (role, phone) WHERE phone_verified_at IS NOT NULL
            """,
            """
            CREATE TABLE auth_codes (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                phone text NOT NULL,
                role text NOT NULL CHECK (role IN ('rider', 'driver')),
                salt text NOT NULL CHECK (salt ~ '^[0-9a-f]{32}$'),
                code_hash text NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
                attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                created_at timestamptz NOT NULL DEFAULT now(),
                expires_at timestamptz NOT NULL,
                used_at timestamptz
            )
            """,
            "CREATE INDEX auth_codes_phone_created_at_idx ON auth_codes (phone, created_at)",
            """
            CREATE TABLE auth_sessions (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                created_at timestamptz NOT NULL DEFAULT now(),
                refreshed_at timestamptz NOT NULL DEFAULT now(),
                expires_at timestamptz NOT NULL,
                revoked_at timestamptz,
                revoked_reason text CHECK (revoked_reason IN ('signout', 'revoked', 'refresh_reuse'))
            )
            """,
            "CREATE INDEX auth_sessions_user_id_idx ON auth_sessions (user_id)",
            """
            CREATE TABLE auth_tokens (
                token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
                session_id uuid NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
                kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
                created_at timestamptz NOT NULL DEFAULT now(),
                expires_at timestamptz NOT NULL,
                rotated_at timestamptz
            )
            """,
            "CREATE INDEX auth_tokens_session_id_idx ON auth_tokens (session_id)",
            """
            CREATE TABLE operators (
                name text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
                key_hash text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
                created_at timestamptz NOT NULL DEFAULT now(),
                revoked_at timestamptz
            )
            """,
            // now() is the migration's transaction time: every existing token gets the same end.
            "ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz NOT NULL DEFAULT now() + interval '\(legacyTokenLifetime)'",
            "ALTER TABLE api_tokens ALTER COLUMN expires_at DROP DEFAULT",
        ]
    )
}
