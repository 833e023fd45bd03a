import TriggerRuntime

/// A webhook delivery can be acknowledged once it is stored as received; `applyWebhookDelivery` applies it after.
///
/// **Why.** The acknowledgement was the intake's whole PostgreSQL work in one transaction: the device statuses and
/// positions applied, the kept events into the inbox (``WebhookStatements``). About 30 ms for a delivery of 434
/// locations on an idle machine and 65-80 ms p50, 600 ms p99 under the 10,000-driver city (33rd session,
/// BENCHMARKS.md), against issue 19's 50 ms p99; every part of it had been made cheaper and none was left that
/// could take the rest. The emulator's sender (as HyperTrack's may) waits for each answer, so the sum of
/// acknowledgements paced the intake.
/// With `WEBHOOKS_APPLY=worker` (not the default; it needs 16 worker lanes, BENCHMARKS.md, 34th-35th sessions) the
/// request writes one receipt (``receipts``, small, captured by the runtime) and its body (``bodies``, the
/// delivery's text, not captured: the capture copies a row into the runtime's queue, and a body is up to 32 MiB),
/// and ``ApplyWebhookDelivery`` applies it in the worker with the runtime's retries: a receipt is applied once,
/// or dead-lettered where an operator sees it, never dropped.
///
/// The body's texts are stored uncompressed (`STORAGE EXTERNAL`): each is written once, read once and deleted,
/// so compressing it would be CPU in the acknowledgement for space held a fraction of a second.
///
/// ``deviceFunctionAt`` is ``M0029DeviceDriveEnds/deviceFunction`` at a given instant (the receipt's), not `now()`:
/// applied later, a location received while a leg's drive was open is kept even when the drive has ended since.
///
/// Additive, for a rolling upgrade: the previous release's API applies its deliveries itself, and its
/// `drive_location_devices(text[])` stays.
enum M0031WebhookReceipts {
    static let receipts = "webhook_receipts"
    static let bodies = "webhook_receipt_bodies"
    /// `(text[], timestamptz) → SETOF text`: the given devices whose locations a drive reads at the instant.
    static let deviceFunctionAt = M0029DeviceDriveEnds.deviceFunction

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0031_webhook_receipts",
        statements: [
            """
            CREATE TABLE \(Self.receipts) (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                message_id text NOT NULL,
                received_at timestamptz NOT NULL DEFAULT now(),
                events int NOT NULL CHECK (events > 0)
            ) WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000)
            """,
            """
            CREATE TABLE \(Self.bodies) (
                receipt_id bigint PRIMARY KEY REFERENCES \(Self.receipts) (id) ON DELETE CASCADE,
                elements text NOT NULL,
                events text NOT NULL,
                location_devices text[] NOT NULL,
                has_statuses boolean NOT NULL
            ) WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000)
            """,
            "ALTER TABLE \(Self.bodies) ALTER COLUMN elements SET STORAGE EXTERNAL",
            "ALTER TABLE \(Self.bodies) ALTER COLUMN events SET STORAGE EXTERNAL",
            """
            CREATE FUNCTION \(Self.deviceFunctionAt)(devices text[], at timestamptz) RETURNS SETOF text
            LANGUAGE sql STABLE PARALLEL SAFE
            SET enable_seqscan = off
            AS $function$
            \(M0029DeviceDriveEnds.body(at: "$2"))
            $function$
            """,
        ]
    )
}
