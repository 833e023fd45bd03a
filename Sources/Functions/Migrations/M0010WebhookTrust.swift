import TriggerRuntime

/// Webhooks we can trust: deduplication by content, rejected events recorded apart, and what retention needs.
///
/// - `webhook_events.content_key` identifies an event by what it says (type, device, trip, value, time, position:
///   ``InboxEvent/contentKey``), so a replay under a new `x-amz-sns-message-id` (the id is not signed) inserts
///   nothing. Rows from before this migration get a key of their own (`legacy:<id>`): they were already handled.
/// - `webhook_rejections` keeps the events of authenticated deliveries that could not be used (not an array,
///   coordinates out of range, an unknown type), with the reason. No function reads it, so a bad event is never
///   retried into the dead letters.
/// - Indexes for the retention sweep (``PruneWebhookEvents``): processed events by type and time.
/// - `order_legs.checked_at` and an index of the legs still waiting for an event, for ``ReconcileTrips``.
enum M0010WebhookTrust {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0010_webhook_trust",
        statements: [
            "ALTER TABLE webhook_events ADD COLUMN content_key text",
            "UPDATE webhook_events SET content_key = 'legacy:' || id",
            "ALTER TABLE webhook_events ALTER COLUMN content_key SET NOT NULL",
            "CREATE UNIQUE INDEX webhook_events_content_key_idx ON webhook_events (content_key)",
            "CREATE INDEX webhook_events_received_at_idx ON webhook_events (received_at)",
            """
            CREATE TABLE webhook_rejections (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                message_id text NOT NULL,
                event_index int,
                reason text NOT NULL,
                payload jsonb,
                received_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX webhook_rejections_received_at_idx ON webhook_rejections (received_at)",
            // When the reconciler last asked HyperTrack about a leg, so it asks again only after a pause.
            "ALTER TABLE order_legs ADD COLUMN checked_at timestamptz",
            """
            CREATE INDEX order_legs_unsettled_idx ON order_legs (created_at)
                WHERE status = 'active' OR (status = 'completed' AND distance IS NULL)
            """,
        ]
    )
}
