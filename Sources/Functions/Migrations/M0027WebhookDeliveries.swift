import TriggerRuntime

/// Webhook deliveries are acknowledged once stored as received; a function files their events into the inbox.
///
/// **Why.** The endpoint used to answer HyperTrack after the delivery's whole intake: drivers moved, statuses set,
/// every event inserted into the inbox, in one transaction (two statements of 34 and 50-91 ms a 500-event delivery
/// in the 26th session's city). The acknowledgement's p99 was 575-822 ms against a target of 50 ms, and since the
/// emulator, like HyperTrack, has a delivery in flight at a time, that latency also bounded how fast the city's
/// clock ran (2.5-3× of the 5× asked). Now the endpoint writes the delivery as it came (two narrow rows, one
/// statement) and answers; ``IngestWebhookDelivery`` does the intake in the worker.
///
/// - `webhook_deliveries`: one row per delivery waiting for the intake, the row `ingestWebhookDelivery` fires on.
///   `lane` is its ordering key, the same for every delivery, so deliveries are filed in the order they committed,
///   as the endpoint filed them when it did it at once (a trip's `completed` event after the locations that came
///   before it). `analyzeTrip`, which may run before the lane reaches a delivery received during the drive (a ride
///   completed through the API), reads the waiting deliveries' locations from their bodies
///   (`StoreStatements.TripLocations`).
/// - `webhook_delivery_bodies`: the delivery's usable events (the intake's normalised rows, as JSON), its
///   elements as sent, and whether it has location and device status events (the intake skips the statement of a
///   kind the delivery lacks, as the endpoint did). Apart from the fired row because the runtime's capture copies the whole row into its
///   delivery (`to_jsonb(NEW)`): the bodies, up to megabytes, would be written twice and read back through the
///   claim. Stored uncompressed (`EXTERNAL`): the endpoint's statement should not spend its time compressing text
///   that lives for a fraction of a second.
///
/// Both rows are deleted by the intake that files them, in its transaction, so the tables stay small; a delivery
/// whose intake failed keeps its rows (and its runtime delivery, retried and dead-lettered as any other).
///
/// **Additive, for a rolling upgrade:** the inbox is unchanged, so a previous release's endpoint keeps filing
/// deliveries itself; deliveries written by the new endpoint wait for a worker of the new release (a worker that
/// does not know `ingestWebhookDelivery` never claims its deliveries).
enum M0027WebhookDeliveries {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0027_webhook_deliveries",
        statements: [
            """
            CREATE TABLE webhook_deliveries (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                message_id text NOT NULL,
                lane text NOT NULL DEFAULT 'intake',
                received_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE webhook_delivery_bodies (
                delivery_id bigint PRIMARY KEY,
                events text NOT NULL,
                elements text NOT NULL,
                has_locations boolean NOT NULL,
                has_statuses boolean NOT NULL
            )
            """,
            """
            ALTER TABLE webhook_delivery_bodies
                ALTER COLUMN events SET STORAGE EXTERNAL,
                ALTER COLUMN elements SET STORAGE EXTERNAL
            """,
        ]
    )
}
