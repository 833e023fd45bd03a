extension RuntimeSchema {
    /// The SQLSTATE `trigger_runtime.schedule_timer()` raises for a function not installed as a timer function;
    /// ``PostgresTimers`` answers it with ``TriggerRuntimeError/Code/functionNotRegistered``.
    static let unregisteredTimerState = "TR001"

    /// Migration 0014: scheduling a timer is a function of the schema, `trigger_runtime.schedule_timer()`, so an
    /// application's own statement can set its timers with the rows they belong to (``PostgresTimers/scheduleFunction``).
    ///
    /// **Why.** A timer needed a statement of its own (``PostgresTimers``' `Schedule`), so a write that sets timers
    /// needed a transaction: `BEGIN`, the write, one statement per timer, `COMMIT`. The API's booking runs the order's
    /// first dispatch round and sets its round and window timers: five round trips, each of the API's awaits resuming
    /// behind its streams' work, of which the commit step alone took p99 128 ms in the 57th session's ten-minute city
    /// (BENCHMARKS.md, R3). Called from the booking's statement, it is one round trip and needs no transaction.
    ///
    /// The body is the `Schedule` statement's (v2), in three steps instead of one statement's CTEs: the check that the
    /// function is a timer function, which now raises (`TR001`: a statement cannot answer "not registered" and still
    /// roll back what it wrote with the timer; the `Schedule` statement's callers always threw on it), the write, and
    /// the notification. The steps run in order, so the transaction has its id (taken by the write) before the check
    /// of awake workers, which the statement had to force (`pg_current_xact_id()`). The `Schedule` statement calls it
    /// (v3): one text of the write.
    ///
    /// What it writes: the timer, or (with `p_replace` false) nothing when one exists; a due one not yet claimed is a
    /// delivery with attempt 0 and no lease, which `p_replace` removes with the pending one (at most one of the two
    /// exists) and keeping keeps. It notifies the workers' channel when it wrote, unless a worker is awake on the
    /// channel: the capture trigger's rule (runtime migration 0004), for the same reason. A paced worker claims every
    /// `claimInterval` and every claim promotes the due timers; one that stops pacing settles (waits for every writer
    /// that may have skipped) and, idle, reads when the earliest timer is due.
    ///
    /// **Why the skip** (the `Schedule` statement's v2; v1 always notified): a `NOTIFY` takes a database-wide lock at
    /// commit and holds it through the commit's WAL flush. In the 4,000-ride city every dispatch committed one (its
    /// round and window timers), as did every ride's arrival checks, queueing each behind the others' and the event
    /// sequencer's: 8,000 in 396 s of rides (55th session, run Kd2), the most of any writer once the worker stayed
    /// paced through the stream. Tried in the 54th session without a measured gain, when the worker was declared only
    /// a fifth of the time.
    static let scheduleTimer: [String] = [
        """
        CREATE FUNCTION trigger_runtime.schedule_timer(
            p_function text, p_document text, p_key text, p_replace boolean, p_due_at timestamptz,
            p_payload jsonb, p_channel text)
        RETURNS boolean
        LANGUAGE plpgsql
        AS $$
        DECLARE
            wrote boolean;
        BEGIN
            IF NOT EXISTS (SELECT FROM trigger_runtime.functions WHERE name = p_function AND kind = 'timer') THEN
                RAISE EXCEPTION '% is not installed as a timer function', p_function
                    USING ERRCODE = '\(unregisteredTimerState)',
                          HINT = 'register it and run migrate (TriggerInstaller)';
            END IF;
            WITH promoted AS (
                SELECT id FROM trigger_runtime.deliveries
                WHERE function_name = p_function AND document_key = p_document AND timer_key = p_key
                  AND status = 'ready' AND attempt = 0 AND lease_token IS NULL
                FOR UPDATE
            ),
            unpromoted AS (
                DELETE FROM trigger_runtime.deliveries
                WHERE id IN (SELECT id FROM promoted) AND p_replace
                RETURNING id
            ),
            written AS (
                INSERT INTO trigger_runtime.timers (function_name, document_key, timer_key, due_at, payload)
                SELECT p_function, p_document, p_key, p_due_at, p_payload
                WHERE p_replace OR NOT EXISTS (SELECT FROM promoted)
                ON CONFLICT (function_name, document_key, timer_key) DO UPDATE
                SET due_at = excluded.due_at, payload = excluded.payload, created_at = now()
                WHERE p_replace
                RETURNING 1
            )
            SELECT EXISTS (SELECT FROM written) INTO wrote;
            IF wrote AND (current_setting('transaction_isolation') <> 'read committed' OR NOT EXISTS (
                    SELECT FROM trigger_runtime.awake_workers a
                    WHERE a.channel = p_channel AND a.until > clock_timestamp())) THEN
                PERFORM pg_notify(p_channel, '');
            END IF;
            RETURN wrote;
        END
        $$
        """
    ]
}
