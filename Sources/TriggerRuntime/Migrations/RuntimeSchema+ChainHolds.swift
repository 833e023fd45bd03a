extension RuntimeSchema {
    /// Migration 0007: a chain's later deliveries wait with its head, so a claim does not walk them.
    ///
    /// A delivery runs only when no earlier delivery of its (function, document) chain is `ready`; the claim scans
    /// due deliveries in `run_after` order and skips the blocked ones one by one. While a chain's head is held (a
    /// handler waiting on a slow HyperTrack call, a retry's backoff) every claim walked all of its due successors
    /// again. Measured with pgbench on the runtime's schema alone (BENCHMARKS.md, "Delivery size, and what makes a
    /// claim slow under chaos"): 400 deliveries a second over 50 documents with heads held 2 s made the claim's mean
    /// 7.7-10.1 ms against 0.40-0.52 ms, and the backlog grew.
    ///
    /// Now a head that is leased or scheduled for a retry moves its chain's later `ready` deliveries' `run_after` up
    /// to its own (`hold_chains`: in the claim, and in a retry's settlement), and a head that is done or dead moves
    /// the next one's back to now (`wake_chains`). The order rule itself is unchanged: the claim's `NOT EXISTS` still
    /// decides what may run, so a hold only decides when a blocked delivery is looked at again. That is what makes a
    /// wrong hold harmless. Holds skip rows another transaction has locked, and a delivery captured after its head
    /// was claimed is not held (the capture trigger is unchanged); either way it is only walked as before. A hold
    /// that outlives its reason (a wake that did not reach a delivery, in some order of concurrent transactions)
    /// delays that delivery at most until the hold's time, its head's lease or backoff: a bounded delay, never a lost
    /// delivery. A renewed lease does not extend the hold: after the first lease period the successors are walked
    /// again until the head is done.
    static let chainHolds: [String] = [
        // Moves the later ready deliveries of each given head's chain (function, document, the head's id) up to
        // the head's new `run_after` (`p_until`).
        chainFunction(
            "hold_chains(p_functions text[], p_documents text[], p_ids bigint[], p_until timestamptz[])",
            holdSuccessors(
                of: "unnest(p_functions, p_documents, p_ids, p_until) AS h(function_name, document_key, id, until)",
                excluding: "p_ids"
            )
        ),
        // Makes the next ready delivery of each given chain (function, document, the id that was done or died) due
        // now; every id of `p_ids` is excluded (a batch may finish several).
        chainFunction(
            "wake_chains(p_functions text[], p_documents text[], p_ids bigint[])",
            """
            UPDATE trigger_runtime.deliveries s SET run_after = now()
                FROM unnest(p_functions, p_documents, p_ids) AS h(function_name, document_key, id)
                WHERE s.id = (
                    SELECT min(e.id) FROM trigger_runtime.deliveries e
                    WHERE e.function_name = h.function_name AND e.document_key = h.document_key
                      AND e.status = 'ready' AND e.id > h.id AND e.id <> ALL (p_ids))
                  AND s.status = 'ready' AND s.run_after > now() AND s.lease_token IS NULL
            """
        ),
        claimFunction(ClaimShape(holding: .joined)),
    ]

    /// A function of the chain holds: PL/pgSQL (its plans are kept for the session), on the indexes only, nothing to
    /// do for no rows. `replacing` and `variables` are 0010's (see ``chainProbes``); 0007's text is what it was.
    static func chainFunction(
        _ signature: String,
        _ statement: String,
        replacing: Bool = false,
        declaring variables: String? = nil
    ) -> String {
        """
        CREATE \(replacing ? "OR REPLACE " : "")FUNCTION trigger_runtime.\(signature)
        RETURNS void
        LANGUAGE plpgsql
        SET enable_seqscan = off
        SET enable_bitmapscan = off
        AS $$
        \(variables.map { "DECLARE\n    \($0)\n" } ?? "")BEGIN
            IF p_ids IS NULL THEN
                RETURN;
            END IF;
            \(statement);
        END
        $$
        """
    }

    /// The hold: the later ready deliveries of each chain of `heads` (a FROM item `h` with `function_name`,
    /// `document_key`, `id` and `until`) move up to `until`, those whose hold has less than half of the new one left,
    /// so a long chain is rewritten once per half lease, not on every claim of its next head (holding every later
    /// delivery on every claim made the test of 1,000 updates to one row rewrite ~500,000 rows). Rows another
    /// transaction has locked are skipped, and so are the ids of `excluding` (an array).
    static func holdSuccessors(of heads: String, excluding: String) -> String {
        """
        UPDATE trigger_runtime.deliveries s SET run_after = w.until
            FROM (
                SELECT e.id, h.until
                FROM \(heads)
                JOIN trigger_runtime.deliveries e
                  ON e.function_name = h.function_name AND e.document_key = h.document_key
                WHERE e.status = 'ready' AND e.id > h.id AND e.lease_token IS NULL
                  AND e.run_after < now() + (h.until - now()) / 2
                  AND e.id <> ALL (\(excluding))
                FOR UPDATE OF e SKIP LOCKED
            ) w
            WHERE s.id = w.id
        """
    }

    /// The hold written into the claim's statement (a data-modifying CTE runs whether or not it is referenced),
    /// under the claim's planner settings. With deliveries spread over 1,000,000 documents (no chains to hold), the
    /// claim's mean was 0.26-0.43 ms without holds (median 0.33, 9 pgbench arms), 0.34-0.56 ms calling `hold_chains`
    /// (median 0.42, 7 arms) and 0.30-0.57 ms written in (4 arms, alternated with the others; BENCHMARKS.md).
    static let holdLeased = """
        held AS (
            \(holdSuccessors(of: "(SELECT function_name, document_key, id, run_after AS until FROM leased) h", excluding: "picked"))
        )
        """

    /// The `hold_chains` call for the rows of `source`, a statement's CTE returning heads with their new `run_after`:
    /// one row, to join with what the statement returns (a CTE that only selects runs only when referenced).
    static func holding(_ source: String) -> String {
        """
        SELECT trigger_runtime.hold_chains(
            array_agg(function_name), array_agg(document_key), array_agg(id), array_agg(run_after)) FROM \(source)
        """
    }

    /// The `wake_chains` call for the rows of `source` (deliveries that were done or died); see ``holding(_:)``.
    static func waking(_ source: String) -> String {
        """
        SELECT trigger_runtime.wake_chains(array_agg(function_name), array_agg(document_key), array_agg(id)) \
        FROM \(source)
        """
    }
}
