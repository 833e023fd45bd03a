extension RuntimeSchema {
    /// How a claim holds the chains of the heads it leases.
    enum ChainHolding {
        /// Not at all (migration 0005).
        case none
        /// In the lease's own statement, the successors joined to the leased rows (0007 to 0009).
        case joined
        /// By `hold_chains()`, a probe of each leased head's own chain (0010).
        case probed
    }

    /// How a claim checks that a candidate is its chain's head (no earlier ready delivery of its function and
    /// document).
    enum ChainRule: Equatable {
        /// A `NOT EXISTS` the planner may turn into an anti-join (0003 to 0008).
        case antiJoin
        /// A probe per candidate (0009).
        case probed
        /// A probe per candidate whose only index condition is the chain's range of `deliveries_document_idx` (0010).
        case probedByRow
    }

    /// What a version of the claim does; each migration that replaced the claim changed one of these.
    struct ClaimShape {
        var holding: ChainHolding
        /// Each function's due deliveries are found in its own range of an index (0008).
        var perFunction = false
        var chainRule = ChainRule.antiJoin
    }

    /// Migration 0010: every probe of a chain (the claim's order rule, holding a leased head's successors, waking the
    /// next one when a head is done) reads that chain's range of `deliveries_document_idx` and nothing else, and the
    /// rows they move are found through the primary key; no plan of theirs can read the queue once per row of it.
    ///
    /// **Why.** The queue's statistics are nearly always those of an empty table (autovacuum visits it when its
    /// deliveries are done, leaving pages and few or no live rows, so every size is estimated at about one row until
    /// the next analysis), and on those the planner may pick any index and join any way. In the 21st session's chaos
    /// run (10,000 drivers, 20 bookings a second, PostgreSQL restarted) `auto_explain` caught three claims of 5.5 s,
    /// 6.1 s and 57 s, all in the statement that held the leased heads' successors (an `UPDATE ... FROM` a locking
    /// subquery joined to the leased rows): it scanned the whole primary key of `deliveries` and, for each of its
    /// 1,365 rows, ran the locking subquery again, which read the whole ready index once per leased head (16,380
    /// scans, 15.5 million buffers, no successor found). Those were the 10-41 s claims on the CPU with no wait event
    /// that the 20th session's sampler saw, and the workers stalled behind them.
    ///
    /// Writing each probe as a `LATERAL` subquery per head (so it must run per head with the head's values as its
    /// conditions) was not enough: `deliveries_function_ready_idx (function_name, run_after, id)` also answers
    /// `function_name = ...` and `id > ...`, and on one-row estimates it costs the same as the chain's index, so a
    /// first version read the function's whole ready range per head (`SchemaTests`' empty-statistics claim: 3,200,032
    /// rows fetched); so did 0009's order rule, without heap fetches, 246 ms for a claim of 32 over 100,000 due rows.
    /// So now:
    /// - the ready index is rebuilt with `run_after IS NOT NULL` in its predicate: a query may use it only if it
    ///   constrains `run_after` (the claim's pick and `secondsUntilNextDue` do, no probe does);
    /// - a probe's order condition is a row comparison, `(function_name, document_key, id) < (...)`, which only an
    ///   index leading with those three columns can use (the primary key no longer matches `id < ...`);
    /// - the rows a hold or a wake moves are locked and updated through `id = ANY` of the primary key, with
    ///   `status <> 'dead'` (the same as `= 'ready'`, the only other status) where the row must be checked: no
    ///   partial index's predicate follows from it, so no full scan of one is a candidate (on these statistics one
    ///   looked cheaper than 64 primary-key probes).
    ///
    /// `ChainHoldTests` builds a drained queue's statistics (ten dead letters left, vacuumed) under 1,000 chains of
    /// three: a claim of 32 and the wake of its heads fetched 3,624 and 3,064 rows with 0009's functions, 256 and 96
    /// with these (the same on a copy of the chaos run's database with its statistics set so: 193 and 8,308 before,
    /// 256 and 64 after; the claim's extra rows are the successors it now locks by key). Rebuilding the index
    /// takes a lock that holds writers of `deliveries` for as long as the build (milliseconds for a queue of
    /// thousands). The claim calls `hold_chains()` on what it leased, as a retry already did.
    static let chainProbes: [String] = [
        """
        CREATE INDEX deliveries_function_due_idx ON trigger_runtime.deliveries (function_name, run_after, id) \
        WHERE status = 'ready' AND run_after IS NOT NULL
        """,
        "DROP INDEX trigger_runtime.deliveries_function_ready_idx",
        "ALTER INDEX trigger_runtime.deliveries_function_due_idx RENAME TO deliveries_function_ready_idx",
        chainFunction(
            "hold_chains(p_functions text[], p_documents text[], p_ids bigint[], p_until timestamptz[])",
            """
            SELECT array_agg(s.id), array_agg(h.until) INTO successors, untils
                FROM unnest(p_functions, p_documents, p_ids, p_until) AS h(function_name, document_key, id, until)
                CROSS JOIN LATERAL (\(laterChainMembers(of: "h"))) s;
                IF successors IS NULL THEN
                    RETURN;
                END IF;
                -- A successor is of one head's chain; array_position is linear, and a claim holds a few.
                UPDATE trigger_runtime.deliveries d SET run_after = untils[array_position(successors, d.id)]
                WHERE d.id = ANY (ARRAY(
                    SELECT x.id FROM trigger_runtime.deliveries x
                    WHERE x.id = ANY (successors) AND x.status <> 'dead' AND x.lease_token IS NULL
                      AND x.run_after < now() + (untils[array_position(successors, x.id)] - now()) / 2
                    FOR UPDATE OF x SKIP LOCKED))
            """,
            replacing: true,
            declaring: "successors bigint[];\n    untils timestamptz[];"
        ),
        // The earliest later delivery of each chain, from all of them: a min() over the table alone could be planned
        // as a walk of the primary key from the head on.
        chainFunction(
            "wake_chains(p_functions text[], p_documents text[], p_ids bigint[])",
            """
            UPDATE trigger_runtime.deliveries d SET run_after = now()
                WHERE d.id = ANY (ARRAY(
                        SELECT min(s.id)
                        FROM unnest(p_functions, p_documents, p_ids) WITH ORDINALITY
                            AS h(function_name, document_key, id, n)
                        CROSS JOIN LATERAL (\(laterChainMembers(of: "h"))) s
                        GROUP BY h.n))
                  AND d.status <> 'dead' AND d.run_after > now() AND d.lease_token IS NULL
            """,
            replacing: true
        ),
        claimFunction(ClaimShape(holding: .probed, perFunction: true, chainRule: .probedByRow)),
    ]

    /// The order rule of 0010's claim: no earlier ready delivery in candidate `c`'s chain (see ``chainProbes``).
    static let isChainHeadProbedByRow = """
        NOT EXISTS (
                      SELECT FROM trigger_runtime.deliveries e
                      WHERE e.function_name = c.function_name AND e.document_key = c.document_key
                        AND (e.function_name, e.document_key, e.id) < (c.function_name, c.document_key, c.id)
                        AND e.status = 'ready'
                      OFFSET 0)
        """

    /// The ready deliveries after head `h` in its chain, other than the heads `p_ids`, as a subquery run per head.
    private static func laterChainMembers(of h: String) -> String {
        """
        SELECT e.id FROM trigger_runtime.deliveries e
                    WHERE e.function_name = \(h).function_name AND e.document_key = \(h).document_key
                      AND (e.function_name, e.document_key, e.id) > (\(h).function_name, \(h).document_key, \(h).id)
                      AND e.status = 'ready' AND e.id <> ALL (p_ids)
                    OFFSET 0
        """
    }
}
