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
