extension RuntimeSchema {
    /// Migration 0011: `wake_chains()` plans its statement once per connection.
    ///
    /// **Why.** Every completion calls it, and PostgreSQL's plan cache planned its `UPDATE` anew at every call: in the
    /// 22nd session's 10-minute city (`pg_stat_statements`, `track = all`, `track_planning`) 28,519 plans in 4.5
    /// minutes at 0.35 ms (9.9 s), four times the 2.5 s the statement ran. With the arrays' lengths known the custom plan is
    /// estimated cheaper than the generic one, so the cache never switched; yet both are the plan 0010 wrote the
    /// statement for (a probe of each head's chain range, the woken rows through the primary key), which its
    /// `LATERAL ... OFFSET 0` fixes whatever the estimates (`ChainHoldTests` reads the rows it fetches).
    static let cachedPlans: [String] = [
        """
        ALTER FUNCTION trigger_runtime.wake_chains(text[], text[], bigint[])
            SET plan_cache_mode = force_generic_plan
        """
    ]
}

extension RuntimeSchema {
    /// Migration 0012: every statement a worker runs per claim, per completion and per timer plans once per
    /// connection, as 0011 made `wake_chains()` do.
    ///
    /// **Why.** Read live from the 25th session's 4,000-ride city (10,000 drivers, 20 bookings a second, one worker;
    /// `pg_stat_statements` with `track = all` and `track_planning`, the first 180 s of the rides): PostgreSQL planned
    /// these at (nearly) every call, whether prepared or inside PL/pgSQL, because with the arrays' lengths known the
    /// custom plan always looks cheaper than the generic one: the claim's pick (7,307 plans of 7,446 calls, 3.1 s),
    /// its lease (2.4 s), `hold_chains()` (2.2 s, twice what it ran), the completion's `MarkDoneBatch` (19,672 of
    /// 19,672, 5.9 s against 9.4 s run) and the timer's schedule (4,215 of 4,215, 2.9 s against 1.2 s run; its test
    /// saw the cache settle on the generic plan at rest, the city's queue never let it). About 16 s of planning in
    /// 180 s, most of it on the worker's path from a claim to a handler and from a handler to its completion.
    ///
    /// The plans are the ones 0010 wrote these statements for, whatever the estimates: each chain probe a
    /// `LATERAL ... OFFSET 0` on its own range, each moved row found by primary key (`ChainHoldTests` and
    /// `SchemaTests` read the rows a claim and a wake fetch on a drained queue's statistics). The completion and the
    /// timer's two statements become functions (`mark_done`, `schedule_timer`, `cancel_timer`) so they can carry the
    /// setting; what they do is unchanged.
    static let cachedPlansEverywhere: [String] = [
        "ALTER FUNCTION trigger_runtime.claim(text[], integer, text, double precision) SET plan_cache_mode = force_generic_plan",
        """
        ALTER FUNCTION trigger_runtime.hold_chains(text[], text[], bigint[], timestamptz[])
            SET plan_cache_mode = force_generic_plan
        """,
        "ALTER FUNCTION trigger_runtime.promote_timers(text[], integer, timestamptz) SET plan_cache_mode = force_generic_plan",
        """
        CREATE FUNCTION trigger_runtime.mark_done(p_ids bigint[], p_tokens uuid[])
        RETURNS SETOF bigint
        LANGUAGE plpgsql
        SET plan_cache_mode = force_generic_plan
        AS $$
        BEGIN
            RETURN QUERY
            \(markDone);
        END
        $$
        """,
        """
        CREATE FUNCTION trigger_runtime.schedule_timer(
            p_function text, p_document text, p_key text, p_replace boolean, p_due timestamptz,
            p_delay double precision, p_payload text, p_channel text,
            OUT o_registered bigint, OUT o_written bigint)
        LANGUAGE plpgsql
        SET plan_cache_mode = force_generic_plan
        AS $$
        DECLARE
            v_notified bigint;
            v_unpromoted bigint;
        BEGIN
            \(scheduleTimer);
        END
        $$
        """,
        """
        CREATE FUNCTION trigger_runtime.cancel_timer(p_function text, p_document text, p_key text)
        RETURNS bigint
        LANGUAGE plpgsql
        SET plan_cache_mode = force_generic_plan
        AS $$
        DECLARE
            removed bigint;
        BEGIN
            \(cancelTimer);
            RETURN removed;
        END
        $$
        """,
    ]

    /// Moves the deliveries of `p_ids` whose claims still hold them (`p_tokens`, in the same order) to the done log
    /// and wakes each chain's next delivery (migration 0007); returns their ids. Found through the primary key.
    static let markDone = """
        WITH d AS (
                DELETE FROM trigger_runtime.deliveries x
                WHERE x.id = ANY (p_ids) AND x.lease_token = p_tokens[array_position(p_ids, x.id)]
                RETURNING x.id, x.function_name, x.table_name, x.operation, x.document_key, x.committed_at,
                          x.attempt, x.lease_owner
            ),
            moved AS (
                INSERT INTO trigger_runtime.done
                    (id, function_name, table_name, operation, document_key, committed_at, attempt, lease_owner)
                SELECT * FROM d RETURNING done.id
            ),
            woken AS (\(waking("d")))
            SELECT moved.id FROM moved, woken
        """

    /// Writes (or, with `p_replace` false, leaves) the timer; a due one not yet claimed is a delivery with attempt 0
    /// and no lease, which replacing removes with the pending one (at most one of the two exists) and keeping
    /// keeps. Notifies `p_channel` when it wrote. Sets whether the function is a registered timer function and how
    /// many timers it wrote (the other two counts only make their statements run).
    static let scheduleTimer = """
        WITH f AS (SELECT FROM trigger_runtime.functions WHERE name = p_function AND kind = 'timer'),
            promoted AS (
                SELECT x.id FROM trigger_runtime.deliveries x
                WHERE x.function_name = p_function AND x.document_key = p_document AND x.timer_key = p_key
                  AND x.status = 'ready' AND x.attempt = 0 AND x.lease_token IS NULL
                FOR UPDATE
            ),
            unpromoted AS (
                DELETE FROM trigger_runtime.deliveries x
                WHERE x.id IN (SELECT promoted.id FROM promoted) AND p_replace
                RETURNING x.id
            ),
            written AS (
                INSERT INTO trigger_runtime.timers AS t (function_name, document_key, timer_key, due_at, payload)
                SELECT p_function, p_document, p_key, coalesce(p_due, now() + make_interval(secs => p_delay)),
                       p_payload::jsonb
                FROM f WHERE p_replace OR NOT EXISTS (SELECT FROM promoted)
                ON CONFLICT (function_name, document_key, timer_key) DO UPDATE
                SET due_at = excluded.due_at, payload = excluded.payload, created_at = now()
                WHERE p_replace
                RETURNING 1
            ),
            notified AS (SELECT pg_notify(p_channel, '') FROM written LIMIT 1)
            SELECT (SELECT count(*) FROM f), (SELECT count(*) FROM written),
                   (SELECT count(*) FROM notified), (SELECT count(*) FROM unpromoted)
            INTO o_registered, o_written, v_notified, v_unpromoted
        """

    /// Removes the pending timer, or its due delivery not yet claimed (waking its chain's next delivery, migration
    /// 0007); sets `removed` to how many it removed.
    static let cancelTimer = """
        WITH pending AS (
                DELETE FROM trigger_runtime.timers t
                WHERE t.function_name = p_function AND t.document_key = p_document AND t.timer_key = p_key
                RETURNING 1
            ),
            promoted AS (
                DELETE FROM trigger_runtime.deliveries x
                WHERE x.function_name = p_function AND x.document_key = p_document AND x.timer_key = p_key
                  AND x.status = 'ready' AND x.attempt = 0 AND x.lease_token IS NULL
                RETURNING x.id, x.function_name, x.document_key
            ),
            woken AS (\(waking("promoted")))
            SELECT (SELECT count(*) FROM pending) + (SELECT count(*) FROM promoted) INTO removed FROM woken
        """
}
