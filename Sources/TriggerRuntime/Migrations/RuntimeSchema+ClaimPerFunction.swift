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
        claimFunction(ClaimShape(holding: .joined, perFunction: true)),
    ]

    /// Migration 0009: a candidate's check for an earlier ready delivery of its chain is a probe of that chain's
    /// own range of `deliveries_document_idx`, whatever the statistics say.
    ///
    /// **Why.** The check (`NOT EXISTS` an earlier delivery of the same function and document) was planned as an
    /// anti-join, and with statistics that saw few ready deliveries (a fresh deployment, or a queue that grew
    /// between two analyses) PostgreSQL probed the index by function only and filtered on the document: every
    /// candidate read every ready delivery of its function. In the 16th session's 10-minute run (one worker, 10,000
    /// drivers, 20 bookings a second) 3,800 `dispatchOrder` deliveries piled up 200 s into the rides, a claim read
    /// 201,543 buffers (641 ms, and 348 ms more of JIT compiling), one took 44 s, no ride had completed, and the
    /// worker fell further behind the more was due. `SchemaTests` reproduces it: with the statistics of an empty
    /// queue and 100,000 deliveries due, a claim of 32 fetched 3,200,064 rows. `OFFSET 0` keeps the subquery from
    /// being turned into a join (PostgreSQL does not pull up an `EXISTS` with an `OFFSET`), so it runs per candidate
    /// with the candidate's function, document and id as its index condition: on that run's database afterwards,
    /// 162 buffers and 1.1 ms for the same pick.
    ///
    /// **Due timers are promoted at every claim**, before the pick, not only when the pick came back short. In the
    /// next 10-minute run (with the probe) the `NEW` orders' `dispatchWindow` timers (normal priority) were five
    /// minutes overdue and not one had fired: the other functions' claim was always full (2,867 `onTripWebhook`
    /// deliveries waiting), so the timers never became deliveries, and orders that no driver could take were
    /// never cancelled. Promoted, a timer's delivery takes its place among the others (in `run_after` order).
    static let probingChains: [String] = [
        claimFunction(ClaimShape(holding: .joined, perFunction: true, chainRule: .probed))
    ]

    /// ``isChainHead`` as a probe per candidate (see ``probingChains``).
    static let isChainHeadProbed = """
        NOT EXISTS (
                      SELECT FROM trigger_runtime.deliveries e
                      WHERE e.function_name = c.function_name AND e.document_key = c.document_key
                        AND e.status = 'ready' AND e.id < c.id
                      OFFSET 0)
        """

    /// The pick of migrations 0008 to 0010 (see ``claimPerFunction``, ``probingChains`` and ``chainProbes``), with
    /// `isHead` the order rule; `excluding` names an array of ids this claim already picked.
    static func pickHeadsPerFunction(_ limit: String, _ excluding: String?, isHead: String) -> String {
        """
        SELECT p.id FROM unnest(p_functions) AS f(name)
                CROSS JOIN LATERAL (
                    SELECT c.id, c.run_after FROM trigger_runtime.deliveries c
                    WHERE c.function_name = f.name AND c.status = 'ready' AND c.run_after <= now()
                      \(excluding.map { "AND c.id <> ALL (\($0)) " } ?? "")AND \(isHead)
                    ORDER BY c.run_after, c.id
                    LIMIT \(limit)
                    FOR UPDATE OF c SKIP LOCKED
                ) p
                ORDER BY p.run_after, p.id
                LIMIT \(limit)
        """
    }
}
