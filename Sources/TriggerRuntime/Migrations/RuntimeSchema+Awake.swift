extension RuntimeSchema {
    /// Migration 0004: capture triggers skip their NOTIFY while a worker claims on a schedule anyway.
    ///
    /// A NOTIFY takes a database-wide lock at commit and holds it through the commit's WAL flush, so every writer
    /// that notifies waits for the others' flushes (measured: a third of a capture-only producer's rate). Under a
    /// steady stream a worker claims every `claimInterval` regardless of notifications ("paced"); while it does, it
    /// keeps a row in `awake_workers` with a short expiry, renewed as it claims. The capture trigger notifies only
    /// if no unexpired row exists for its channel, or if its transaction is not READ COMMITTED (the check's
    /// snapshot could then be older than a withdrawal).
    ///
    /// A worker that stops pacing deletes its row, then keeps claiming until every transaction that had an id when
    /// the deletion committed has ended (`pg_snapshot_xmin` passes the `pg_snapshot_xmax` read just after it: a
    /// writer's id is assigned before its row trigger runs, so every writer that saw the row is among them), and
    /// claims once more: nothing a writer skipped notifying for is left to the poll. A worker that dies while awake
    /// leaves a row that expires within `awakeFor`; what was captured meanwhile is found by the other workers' poll.
    /// The row stands for the channel, not for functions: workers on one channel are expected to run the same
    /// functions (a delivery of a function only a sleeping worker runs waits for that worker's poll).
    static let awake: [String] = [
        """
        CREATE TABLE trigger_runtime.awake_workers (
            worker text PRIMARY KEY,
            channel text NOT NULL,
            until timestamptz NOT NULL
        ) WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 200)
        """,
        captureFunction(
            create: "CREATE OR REPLACE",
            notifyWhen: awakeNotifyCondition
        ),
    ]

    /// Notify unless a worker is awake on the channel (or the writer is not READ COMMITTED); 0004 and 0006.
    static let awakeNotifyCondition = """
        FOUND AND (current_setting('transaction_isolation') <> 'read committed' OR NOT EXISTS (
                SELECT FROM trigger_runtime.awake_workers a
                WHERE a.channel = TG_ARGV[0] AND a.until > clock_timestamp()))
        """
}
