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
    /// Migration 0012: the statements a worker runs per claim and per completion plan once per connection, as 0011
    /// made `wake_chains()` do.
    ///
    /// **Why.** Read live from the 25th session's 4,000-ride city (10,000 drivers, 20 bookings a second, one worker;
    /// `pg_stat_statements` with `track = all` and `track_planning`, 180 s of the rides): PostgreSQL planned
    /// these at (nearly) every call, prepared or inside PL/pgSQL, because with the arrays' lengths known the custom
    /// plan always looks cheaper than the generic one: the claim's pick (7,307 plans of 7,446 calls, 3.1 s), its lease
    /// (2.4 s), `hold_chains()` (2.2 s, twice what it ran) and the completion's `MarkDoneBatch` (19,672 of 19,672,
    /// 5.9 s against 9.4 s run), most of it on the worker's path from a claim to a handler and from a handler to its
    /// completion. In two runs of the city with this migration and the stores' prepared statements (`StoreStatements`),
    /// alternated with three of the build before (BENCHMARKS.md, 25th session), PostgreSQL planned for 10-11 s
    /// instead of 33-35 s in the rides' first 180 s, and a claim took 1.0-1.2 ms instead of 3.3-6.8 ms.
    ///
    /// The plans are the ones 0010 wrote these statements for, whatever the estimates: each chain probe a
    /// `LATERAL ... OFFSET 0` on its own range, each moved row found by primary key (`ChainHoldTests` and
    /// `SchemaTests` read the rows a claim and a wake fetch on a drained queue's statistics, and a claim whose plan was
    /// made on an empty queue's statistics after the queue grows to 100,000). The completion becomes a function,
    /// `mark_done()`, to carry the setting (a function with a setting costs a save and restore of it per call: 0.16 ms
    /// in that run, against 0.31 ms of planning saved). The timers' schedule and cancel stay prepared statements
    /// (``TimerStatements``): wrapped in such functions they took 0.53 and 0.23 ms a call against 0.17 and 0.11 ms,
    /// because in that run their plan cache had settled on the generic plan (33 plans in 7,212 calls).
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
}
