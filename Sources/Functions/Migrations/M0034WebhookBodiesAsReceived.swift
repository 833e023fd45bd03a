import TriggerRuntime

/// A receipt may hold its delivery's body as received (`body`, the bytes HyperTrack signed), which
/// ``ApplyWebhookDelivery`` decodes in the worker, instead of the events the API decoded (`elements`, `events`,
/// ``M0031WebhookReceipts``).
///
/// **Why.** With `WEBHOOKS_APPLY=worker` the acknowledgement was still the body's decoding into events (2-3 ms of CPU
/// for a city's 434-location delivery) and their encoding again for the receipt, then the receipt's `INSERT` of
/// both texts. On the 2-core machine under the 10,000-driver city each waited for a core: decoding took over 10 ms
/// for 17-36% of the deliveries and the `INSERT` for 24-51% (BENCHMARKS.md, 41st session), against issue 19's 50 ms
/// p99. Stored as received, the acknowledgement is the authentication and one `INSERT` of the body; the worker
/// decodes it once (it decoded the API's encoded events before: a decoding either way) and records the rejected
/// events itself, in the transaction that applies the rest.
///
/// `bytea`, not `text`: the body is whatever authenticated, and a `text` column refuses a NUL byte and invalid UTF-8,
/// which would have turned a malformed delivery into a failed request instead of a recorded rejection. Uncompressed
/// (`STORAGE EXTERNAL`) like the texts it replaces: written once, read once, deleted.
///
/// `webhook_receipts.events` may be `NULL`: how many usable events a body holds is not known until it is decoded.
/// Exactly one form per body (the constraint). Additive for the readers: the previous release's worker reads
/// `elements` and `events` and fails on a body-only receipt (retried by the runtime until this release's worker
/// applies it, or dead-lettered where an operator retries it: never lost); deploy the workers before the API, as
/// deploy/README.md says for every release.
enum M0034WebhookBodiesAsReceived {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0034_webhook_bodies_as_received",
        statements: [
            "ALTER TABLE \(M0031WebhookReceipts.receipts) ALTER COLUMN events DROP NOT NULL",
            """
            ALTER TABLE \(M0031WebhookReceipts.bodies)
                ADD COLUMN body bytea,
                ALTER COLUMN elements DROP NOT NULL,
                ALTER COLUMN events DROP NOT NULL,
                ALTER COLUMN location_devices DROP NOT NULL,
                ALTER COLUMN has_statuses DROP NOT NULL,
                ADD CONSTRAINT webhook_receipt_bodies_one_form
                    CHECK ((body IS NOT NULL) = (elements IS NULL AND events IS NULL))
            """,
            "ALTER TABLE \(M0031WebhookReceipts.bodies) ALTER COLUMN body SET STORAGE EXTERNAL",
        ]
    )
}
