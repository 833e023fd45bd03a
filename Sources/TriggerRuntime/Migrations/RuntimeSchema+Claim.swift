extension RuntimeSchema {
    /// Migration 0003: the claim no longer waits for its WAL flush.
    ///
    /// A claim only leases deliveries. If the server crashes before the claim's commit reaches disk, the claim is
    /// forgotten: the deliveries are claimable again at once, and the worker that held them cannot complete them
    /// (its connection and open transaction died with the server). So the claim's transaction sets
    /// `synchronous_commit = off` for itself (`set_config(…, true)` lasts until the end of the transaction; the
    /// function's own `SET` clauses are restored on exit, this one is not). Same signature, same query otherwise.
    static let claimWithoutFlush: [String] = [
        """
        CREATE OR REPLACE FUNCTION trigger_runtime.claim(
            p_functions text[], p_limit integer, p_owner text, p_lease_seconds double precision)
        RETURNS SETOF trigger_runtime.deliveries
        LANGUAGE sql
        SET enable_seqscan = off
        SET enable_sort = off
        SET enable_bitmapscan = off
        AS $$
            SELECT set_config('synchronous_commit', 'off', true);
            WITH picked AS (
                SELECT d.id FROM trigger_runtime.deliveries d
                WHERE d.status = 'ready' AND d.run_after <= now() AND d.function_name = ANY (p_functions)
                  AND NOT EXISTS (
                      SELECT FROM trigger_runtime.deliveries e
                      WHERE e.function_name = d.function_name AND e.document_key = d.document_key
                        AND e.status = 'ready' AND e.id < d.id)
                ORDER BY d.run_after, d.id
                LIMIT p_limit
                FOR UPDATE SKIP LOCKED
            )
            UPDATE trigger_runtime.deliveries d
            SET attempt = d.attempt + 1, lease_owner = p_owner, lease_token = gen_random_uuid(),
                run_after = clock_timestamp() + make_interval(secs => p_lease_seconds)
            FROM picked WHERE d.id = picked.id
            RETURNING d.*
        $$
        """
    ]
}
