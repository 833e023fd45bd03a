import TriggerRuntime

/// Orders, with the state machine enforced by a trigger that names both states of an illegal transition.
///
/// The transition table is generated from `OrderStatus.successors`, so the API, the functions and the database
/// agree by construction.
enum M0003Orders {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0003_orders",
        statements: [
            """
            CREATE TABLE orders (
                id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                status text NOT NULL DEFAULT 'NEW' CHECK (status IN (\(statusList))),
                rider_id uuid NOT NULL REFERENCES users (id),
                driver_id uuid REFERENCES users (id),
                pickup_lat double precision NOT NULL CHECK (pickup_lat BETWEEN -90 AND 90),
                pickup_lng double precision NOT NULL CHECK (pickup_lng BETWEEN -180 AND 180),
                pickup_address text,
                dropoff_lat double precision NOT NULL CHECK (dropoff_lat BETWEEN -90 AND 90),
                dropoff_lng double precision NOT NULL CHECK (dropoff_lng BETWEEN -180 AND 180),
                dropoff_address text,
                cancellation_reason text,
                cancelled_by uuid,
                summary jsonb,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz NOT NULL DEFAULT now(),
                accepted_at timestamptz,
                completed_at timestamptz,
                cancelled_at timestamptz,
                CHECK (status IN ('NEW', 'CANCELLED') OR driver_id IS NOT NULL)
            )
            """,
            "CREATE INDEX orders_rider_id_created_at_idx ON orders (rider_id, created_at DESC, id DESC)",
            "CREATE INDEX orders_driver_id_created_at_idx ON orders (driver_id, created_at DESC, id DESC)",
            """
            CREATE UNIQUE INDEX orders_driver_id_active_idx ON orders (driver_id)
                WHERE status NOT IN ('NEW', 'COMPLETED', 'CANCELLED')
            """,
            """
            CREATE FUNCTION orders_enforce_transition() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    IF NEW.status <> 'NEW' THEN
                        RAISE EXCEPTION 'illegal order transition (none) -> %', NEW.status
                            USING ERRCODE = 'check_violation';
                    END IF;
                    RETURN NEW;
                END IF;
                IF NEW.status IS DISTINCT FROM OLD.status THEN
                    IF (OLD.status, NEW.status) NOT IN (\(transitionList)) THEN
                        RAISE EXCEPTION 'illegal order transition % -> %', OLD.status, NEW.status
                            USING ERRCODE = 'check_violation';
                    END IF;
                    CASE NEW.status
                        WHEN 'ACCEPTED' THEN NEW.accepted_at := now();
                        WHEN 'COMPLETED' THEN NEW.completed_at := now();
                        WHEN 'CANCELLED' THEN NEW.cancelled_at := now();
                        ELSE NULL;
                    END CASE;
                END IF;
                NEW.updated_at := now();
                RETURN NEW;
            END
            $$
            """,
            """
            CREATE TRIGGER orders_enforce_transition BEFORE INSERT OR UPDATE ON orders
                FOR EACH ROW EXECUTE FUNCTION orders_enforce_transition()
            """,
        ]
    )

    private static var statusList: String {
        OrderStatus.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }

    private static var transitionList: String {
        OrderStatus.allCases.flatMap { from in
            from.successors.sorted { $0.rawValue < $1.rawValue }.map { "('\(from.rawValue)', '\($0.rawValue)')" }
        }.joined(separator: ", ")
    }
}
