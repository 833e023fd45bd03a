import TriggerRuntime

/// The writers of order events skip their `NOTIFY` while an API's event hub reads the log on a schedule anyway
/// (``OrderEventHub``'s pacing), as the runtime's capture triggers do for an awake worker (runtime migration 0004).
///
/// **Why.** A `NOTIFY` takes a database-wide lock when its transaction commits and holds it through the commit, so
/// the transactions that notify commit one at a time. Every order event notified: the booking's `INSERT`, each
/// accept and status change, each offer, each throttled position. Sampled every half second through the 4,000-ride
/// city (`pg_stat_activity`, run N1 of the 43rd session, BENCHMARKS.md), 287 of the ~1,000 samples of a statement
/// in progress were waiting for that lock (`Lock`/`object`): commits of the worker's transactions, the API's status
/// updates and bookings, the sequencer's own. Under such a stream the hub passes dozens of times a second whether
/// notified or not, so the notifications only cost.
///
/// `order_event_hubs_awake` holds a row per hub that polls, with a short expiry it renews. `order_events_notify()`
/// notifies unless an unexpired row exists or the writer is not `READ COMMITTED` (its snapshot could be older than
/// a withdrawal). The sequencer still notifies when it gave positions: that is how the hubs of other API processes,
/// asleep, learn of events whose writers skipped theirs (since ``M0037EventHubListening``, only while such a hub
/// has registered itself). Nothing can be lost by a skipped notification:
/// every hub also reads every ``OrderEventHub/Configuration/pollInterval`` (a second); a hub that dies while awake
/// leaves a row that expires, and a hub that stops polling polls on for a moment after withdrawing its row. Additive
/// for a rolling upgrade: the previous release's hub never declares itself, so with only such hubs every writer
/// notifies as before.
enum M0036EventHubWakefulness {
    /// The hubs that poll.
    static let awake = "order_event_hubs_awake"
    /// How a writer notifies since this migration.
    static let notify = "PERFORM order_events_notify();"

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0036_event_hub_wakefulness",
        statements: [
            """
            CREATE TABLE \(awake) (
                hub text PRIMARY KEY,
                until timestamptz NOT NULL
            ) WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 200)
            """,
            """
            CREATE FUNCTION order_events_notify() RETURNS void
            LANGUAGE plpgsql
            AS $$
            BEGIN
                IF current_setting('transaction_isolation') <> 'read committed' OR NOT EXISTS (
                    SELECT FROM \(awake) a WHERE a.until > clock_timestamp()) THEN
                    PERFORM pg_notify('\(OrderEventLog.channel)', '');
                END IF;
            END
            $$
            """,
            M0026EventPositions.append(notify: Self.notify),
            M0026EventPositions.forPositions(notify: Self.notify),
        ]
    )
}
