import TriggerRuntime

/// The webhook inbox: one row per event of a delivery, unique on the delivery's message id and the event's index,
/// so a redelivery inserts nothing.
enum M0005WebhookInbox {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0005_webhook_events",
        statements: [
            """
            CREATE TABLE webhook_events (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                message_id text NOT NULL,
                event_index int NOT NULL CHECK (event_index >= 0),
                type text NOT NULL,
                value text,
                device_id text,
                trip_id text,
                latitude double precision,
                longitude double precision,
                recorded_at timestamptz,
                summary jsonb,
                payload jsonb NOT NULL,
                received_at timestamptz NOT NULL DEFAULT now(),
                outcome text,
                processed_at timestamptz,
                UNIQUE (message_id, event_index)
            )
            """,
            "CREATE INDEX webhook_events_trip_id_idx ON webhook_events (trip_id) WHERE trip_id IS NOT NULL",
        ]
    )
}
