extension RuntimeSchema {
    /// Migration 0013: a plan made once per connection cannot keep scanning a table that was empty when it was made.
    ///
    /// **Why.** 0011 and 0012 plan the worker's functions once per connection (`force_generic_plan`). A connection
    /// that first calls them while `deliveries` or `timers` is empty (a fresh deployment, a queue drained overnight)
    /// keeps the plan made for that size until something invalidates it, and for two of them that plan scans:
    /// - `mark_done()` found its ids with a sequential scan of `deliveries`. Read with `auto_explain` (26th session)
    ///   after the table grew to 50,000 rows under the plan: 2,942 pages to delete 3 ids. In the 25th session's
    ///   12,000-ride city (a backlog of thousands) a completion read 362 pages on average and was PostgreSQL's largest
    ///   statement in the rides' first 180 s (41 s of 300 s); in the 4,000-ride city, whose queue stayed short, 22.
    /// - `promote_timers()` scanned `timers` sequentially for the due rows and again for its delete (410 pages
    ///   each at 50,000 timers); with sequential scans off it walked the whole `timers_pkey` (10,132 pages) as the
    ///   outer side of the delete's join to the due rows, because on empty statistics both sides are one row.
    ///
    /// Now every function of the worker's path carries `enable_seqscan = off` (each of their statements reads its
    /// rows through an index by design: 0008 and 0010 shaped the claim's and the chains' probes, the completion finds
    /// rows by primary key, a promotion walks `timers_due_at_idx`), and `promote_timers()` deletes the timers it
    /// locked by `ctid`, a TID scan whatever the estimates. Deleting by `ctid` loses nothing: a locked row cannot
    /// move, and a row that did move before the lock (rescheduled) is not deleted, so it is not promoted either and
    /// waits for the next promotion. `SchemaTests` calls both on empty tables, grows the tables under those plans,
    /// and reads the scans of the second call.
    static let indexedPlans: [String] = [
        """
        ALTER FUNCTION trigger_runtime.claim(text[], integer, text, double precision) SET enable_seqscan = off
        """,
        """
        ALTER FUNCTION trigger_runtime.hold_chains(text[], text[], bigint[], timestamptz[]) SET enable_seqscan = off
        """,
        "ALTER FUNCTION trigger_runtime.wake_chains(text[], text[], bigint[]) SET enable_seqscan = off",
        "ALTER FUNCTION trigger_runtime.mark_done(bigint[], uuid[]) SET enable_seqscan = off",
        """
        CREATE OR REPLACE FUNCTION trigger_runtime.promote_timers(
            p_functions text[], p_limit integer, p_as_of timestamptz)
        RETURNS integer
        LANGUAGE plpgsql
        SET plan_cache_mode = force_generic_plan
        SET enable_seqscan = off
        AS $$
        DECLARE
            promoted integer;
        BEGIN
            WITH due AS (
                SELECT t.ctid AS row FROM trigger_runtime.timers t
                WHERE t.due_at <= p_as_of AND t.function_name = ANY (p_functions)
                ORDER BY t.due_at
                LIMIT p_limit
                FOR UPDATE SKIP LOCKED
            ),
            gone AS (
                DELETE FROM trigger_runtime.timers t WHERE t.ctid = ANY (ARRAY(SELECT due.row FROM due))
                RETURNING t.function_name, t.document_key, t.timer_key, t.due_at, t.payload
            )
            INSERT INTO trigger_runtime.deliveries
                (function_name, table_name, operation, document_key, new_row, committed_at, timer_key)
            SELECT function_name, '', 'timer', document_key, payload, due_at, timer_key FROM gone
            ORDER BY due_at, function_name, document_key, timer_key;
            GET DIAGNOSTICS promoted = ROW_COUNT;
            RETURN promoted;
        END
        $$
        """,
    ]
}
