import TriggerRuntime

/// The inbox deduplicates by a 16-byte `content_id` (`uuid`) instead of the 64-character `content_key` (`text`).
///
/// **Why.** Every event a delivery carries enters the unique index on its content (0010): at the city's 1,000+
/// location events a second that is PostgreSQL's most-written index, and its keys are random, so each insert lands
/// on a random leaf. A text key of 64 hex characters is a 72-byte index entry; a `uuid` is 24. Measured in the 28th
/// session (40 real deliveries of 473 events replayed on a 4,000-ride city's database, rolled back, three rounds):
/// the inbox insert took 14 ms a delivery without the content index against 20-29 ms with it; the other indexes
/// were within noise.
///
/// The id is the first 16 bytes of the same SHA-256 (``InboxEvent/contentID``), which is `left(content_key, 32)`
/// read as a uuid: 128 bits of the hash keep accidental collisions out of reach (about 2⁶⁴ events for an even
/// chance).
///
/// **Additive, for a rolling upgrade** (deploy/README.md): the previous release still inserts `content_key` and no
/// `content_id`. A `BEFORE INSERT` trigger, which fires only for such rows (`WHEN content_id IS NULL`), derives the
/// id from the key, so an event stored by an old process and replayed to a new one (or the other way round) is
/// still one row. Existing rows get their id from their key (`legacy:<id>` keys, not hashes, through `md5`).
/// `content_key` becomes nullable (new rows leave it empty) and loses its index; a later release drops the column
/// and the trigger.
enum M0027ContentIDs {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0027_content_ids",
        statements: [
            "ALTER TABLE webhook_events ADD COLUMN content_id uuid",
            "UPDATE webhook_events SET content_id = \(Self.derived("content_key"))",
            "ALTER TABLE webhook_events ALTER COLUMN content_id SET NOT NULL",
            "CREATE UNIQUE INDEX webhook_events_content_id_idx ON webhook_events (content_id)",
            "DROP INDEX webhook_events_content_key_idx",
            "ALTER TABLE webhook_events ALTER COLUMN content_key DROP NOT NULL",
            """
            CREATE FUNCTION webhook_events_content_id() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                NEW.content_id := \(Self.derived("NEW.content_key"));
                RETURN NEW;
            END
            $$
            """,
            """
            CREATE TRIGGER webhook_events_content_id BEFORE INSERT ON webhook_events
            FOR EACH ROW WHEN (NEW.content_id IS NULL) EXECUTE FUNCTION webhook_events_content_id()
            """,
        ]
    )

    /// `key` (a `content_key`) as a `content_id`: a hash's first half, anything else (`legacy:<id>`) through `md5`.
    static func derived(_ key: String) -> String {
        "CASE WHEN \(key) ~ '^[0-9a-f]{64}$' THEN left(\(key), 32)::uuid ELSE md5(\(key))::uuid END"
    }
}
