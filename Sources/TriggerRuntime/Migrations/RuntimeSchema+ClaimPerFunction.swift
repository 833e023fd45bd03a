extension RuntimeSchema {
    /// Migration 0008: the claim finds each function's due deliveries in that function's own range of an index.
    ///
    /// The claim scanned `deliveries_ready_idx (run_after, id)` and filtered by function. A worker claims its
    /// high-priority functions first (`FunctionOptions.priority`: the dispatch functions), so under a backlog of
    /// other functions' due deliveries that first claim walked the whole backlog to find the few urgent ones. Read
    /// from the 14th session's chaos run at 10,000 drivers and 20 bookings a second, 508 s in (15,266 deliveries
    /// pending, most of them `updateOrderStatus` and `onTripWebhook`): the urgent claim's pick removed 14,277 rows by
    /// its filter and took 61 ms, the other functions' pick 0.34 ms; the claim was PostgreSQL's largest statement
    /// (mean 19.6 ms over 33,953 calls, 666 s of the server's time), and the workers fell further behind the more
    /// they had to do.
    ///
    /// Now `deliveries_function_ready_idx (function_name, run_after, id)` replaces it, and the pick takes the first
    /// due heads of each function from its range (a `LATERAL` subquery per function, each locking what it picks
    /// with `SKIP LOCKED` as before), then the earliest of those: the same rows in the same order as the single scan
    /// chose, since the claim's first `limit` rows are among each function's first `limit`. The cost: a claim probes
    /// one range per function it asks for (an empty range is one index descent), and may lock up to `limit` rows per
    /// function for the claim's own short transaction, of which it leases `limit`; a concurrent claim skips the others
    /// for that long.
    ///
    /// The claim turns JIT compilation off: the final sort of the few picked rows is priced with `enable_sort = off`'s
    /// penalty, which put the plan's cost above `jit_above_cost`, and compiling it took 118 ms of a 0.3 ms query.
    static let claimPerFunction: [String] = [
        """
        CREATE INDEX deliveries_function_ready_idx ON trigger_runtime.deliveries (function_name, run_after, id) \
        WHERE status = 'ready'
        """,
        "DROP INDEX trigger_runtime.deliveries_ready_idx",
        claimFunction(holdingChains: true, perFunction: true),
    ]

    /// The pick of migration 0008 (see ``claimPerFunction``); `excluding` names an array of ids this claim already
    /// picked.
    static func pickHeadsPerFunction(_ limit: String, _ excluding: String?) -> String {
        """
        SELECT p.id FROM unnest(p_functions) AS f(name)
                CROSS JOIN LATERAL (
                    SELECT c.id, c.run_after FROM trigger_runtime.deliveries c
                    WHERE c.function_name = f.name AND c.status = 'ready' AND c.run_after <= now()
                      \(excluding.map { "AND c.id <> ALL (\($0)) " } ?? "")AND \(isChainHead)
                    ORDER BY c.run_after, c.id
                    LIMIT \(limit)
                    FOR UPDATE OF c SKIP LOCKED
                ) p
                ORDER BY p.run_after, p.id
                LIMIT \(limit)
        """
    }
}
