import TriggerRuntime

/// The sequencer notifies only while some hub waits for notifications: hubs that do register themselves
/// (`order_event_hubs_listening`, a row with a short expiry each renews), and a hub reading on a schedule does not.
///
/// **Why.** Since migration 0036 the writers skip their `NOTIFY` while a hub is awake, and the sequencer's own
/// (``M0035EventSequencerFunction``) was kept for the hubs of other API processes that are not. But it notified at
/// every pass that gave positions, whoever listened: in the 55th session's 4,000-ride city (one API, its hub awake
/// throughout the rides) that was 7,847 notifications in 396 s, each a commit queued for the database-wide lock a
/// `NOTIFY` takes, on the path of every offer (its position's commit). Now a hub that waits for notifications (asleep:
/// not paced) keeps a row here, renewed while it waits and deleted when it is paced (``OrderEventLog/declareAwake``)
/// or stops; a hub that stops being paced registers in the same statement as its withdrawal, and its settling passes
/// read what a sequencer that looked before that committed.
///
/// Nothing can be lost: every hub also reads every poll interval (a second). The previous release's hubs never
/// register, so during a rolling upgrade one of them that is asleep, beside a new one that is awake, sees events at its
/// poll rather than at once; a new hub that dies leaves a row that expires, and meanwhile sequencers notify for
/// nobody, as they did before. Additive: the function keeps its name and result, and the previous release's hubs call
/// it.
enum M0037EventHubListening {
    /// The hubs that wait for notifications.
    static let listening = "order_event_hubs_listening"

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0037_event_hub_listening",
        statements: [
            """
            CREATE TABLE \(listening) (
                hub text PRIMARY KEY,
                until timestamptz NOT NULL
            ) WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 200)
            """,
            M0035EventSequencerFunction.function(
                create: "CREATE OR REPLACE",
                notify: """
                    IF EXISTS (SELECT FROM \(listening) l WHERE l.until > clock_timestamp()) THEN \
                    PERFORM pg_notify('\(OrderEventLog.channel)', ''); END IF;
                    """
            ),
        ]
    )
}
