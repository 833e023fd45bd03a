import TriggerRuntime

/// The ordering key of the webhook inbox: `onTripWebhook` handles a device's `location` and `device_status` events
/// one at a time and in order, and a trip's events likewise.
///
/// Keyed by the row id (each event its own document), two worker lanes could hold location events of the same
/// drivers in one transaction each and upsert their `driver_positions` rows in opposite orders: PostgreSQL's deadlock
/// detector then aborts one after `deadlock_timeout` (1 s) and its whole batch runs again. soak-bench's first run at
/// the default WORKER_TRANSACTION_BATCH_SIZE of 32 logged 952 deadlocks and drained about 50 deliveries/s. Keyed by
/// device, the claim takes at most one event of a device at a time (it takes only the oldest ready delivery of a
/// document), so no two lanes ever hold the same driver's row.
///
/// - `device:<device_id>` for `location` and `device_status` events that name a device,
/// - `trip:<trip_id>` for the other events that name a trip (an arrival is handled before its trip's completion),
/// - `event:<message id>:<index>` for the rest (its own document).
///
/// The webhook intake writes the key (``WebhookStatements/Inbox``); a plain nullable column, so
/// adding it does not rewrite a large inbox, and `NOT VALID` so the check is enforced on new rows without scanning
/// the old ones (already handled).
enum M0014WebhookOrdering {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0014_webhook_ordering",
        statements: [
            "ALTER TABLE webhook_events ADD COLUMN ordering_key text",
            """
            ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_ordering_key_set
                CHECK (ordering_key IS NOT NULL) NOT VALID
            """,
        ]
    )
}
