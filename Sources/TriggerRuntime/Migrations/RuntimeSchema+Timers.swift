extension RuntimeSchema {
    /// Migration 0005: timers and schedules.
    ///
    /// - Pending timers live in `trigger_runtime.timers`, not as future rows of `deliveries`: the claim takes only
    ///   the head of each (function, document) chain by id, so a future row would hold back that document's later
    ///   deliveries until it is due. A due timer is *promoted* into `deliveries` (operation `timer`, `new_row` = its
    ///   payload, `committed_at` = its due time, so `trigger.lag` is its lateness, and `timer_key` so it can still
    ///   be cancelled until claimed); from then on it is claimed, fenced, retried and dead-lettered like any
    ///   delivery, in order with its document's other deliveries (its id is taken at promotion).
    /// - Promotion happens inside the claim, and only when the claim found fewer due deliveries than it may take
    ///   and a due timer exists (one probe of `timers_due_at_idx`, which stops at the first entry while none is
    ///   due); the claim then picks again. So a claim that fills its batch pays nothing, one that does not pays one
    ///   index probe while no timer is due, and a worker never needs another round trip. Promotion is exactly once
    ///   under concurrent workers: the rows are picked `FOR UPDATE SKIP LOCKED` and deleted in the statement that
    ///   inserts their deliveries. A promotion moves up to 1,000 timers, not just the claim's batch: promoting only
    ///   what a claim was about to take (often 4 to 8 while a worker's completion rate is still low) drained 2,000
    ///   timers due at once at about 8 per second on the 2-core test machine, one claim-run-commit cycle per
    ///   handful. Promoting 1,000 on every claim (before checking for a backlog) made each claim pay for a
    ///   1,000-row move while it took 64: 100,000 due timers ran at 1,133/s against a delivery drain of 7,856/s.
    /// - `trigger_runtime.schedules` holds one row per scheduled function with its next run; see
    ///   `PostgresOutboxStore.tickSchedules`.
    /// - `trigger_runtime.functions` records timer and schedule functions too (`kind`), with no table, so the
    ///   installer's orphan rule covers them.
    static let timers: [String] = [
        """
        ALTER TABLE trigger_runtime.deliveries
            DROP CONSTRAINT deliveries_operation_check,
            ADD CONSTRAINT deliveries_operation_check
                CHECK (operation IN ('create', 'update', 'delete', 'timer', 'tick')),
            ADD COLUMN timer_key text
        """,
        """
        CREATE TABLE trigger_runtime.timers (
            function_name text NOT NULL,
            document_key text NOT NULL,
            timer_key text NOT NULL,
            due_at timestamptz NOT NULL,
            payload jsonb,
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (function_name, document_key, timer_key)
        ) WITH (\(queueStorage))
        """,
        "CREATE INDEX timers_due_at_idx ON trigger_runtime.timers (due_at)",
        """
        CREATE TABLE trigger_runtime.schedules (
            function_name text PRIMARY KEY,
            schedule text NOT NULL,
            next_run_at timestamptz NOT NULL,
            last_run_at timestamptz,
            installed_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        ALTER TABLE trigger_runtime.functions
            ADD COLUMN kind text NOT NULL DEFAULT 'rows' CHECK (kind IN ('rows', 'timer', 'schedule')),
            ALTER COLUMN table_oid DROP NOT NULL,
            ALTER COLUMN table_name DROP NOT NULL,
            ALTER COLUMN operations DROP NOT NULL,
            ALTER COLUMN key_column DROP NOT NULL
        """,
        // Moves up to `p_limit` timers of `p_functions` due at `p_as_of` into deliveries, in due order; returns how
        // many. The claim passes `now()`; tests pass other instants to check the boundary without waiting.
        """
        CREATE FUNCTION trigger_runtime.promote_timers(
            p_functions text[], p_limit integer, p_as_of timestamptz)
        RETURNS integer
        LANGUAGE plpgsql
        AS $$
        DECLARE
            promoted integer;
        BEGIN
            WITH due AS (
                SELECT t.function_name, t.document_key, t.timer_key FROM trigger_runtime.timers t
                WHERE t.due_at <= p_as_of AND t.function_name = ANY (p_functions)
                ORDER BY t.due_at
                LIMIT p_limit
                FOR UPDATE SKIP LOCKED
            ),
            gone AS (
                DELETE FROM trigger_runtime.timers t USING due
                WHERE t.function_name = due.function_name AND t.document_key = due.document_key
                  AND t.timer_key = due.timer_key
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
        claimFunction(ClaimShape(holding: .none)),
    ]

    /// The claim of migrations 0005 and 0007 to 0010, as `shape` says.
    static func claimFunction(_ shape: ClaimShape) -> String {
        let isHead =
            switch shape.chainRule {
            case .antiJoin: Self.isChainHead
            case .probed: Self.isChainHeadProbed
            case .probedByRow: Self.isChainHeadProbedByRow
            }
        func pick(_ limit: String, _ excluding: String?) -> String {
            shape.perFunction
                ? Self.pickHeadsPerFunction(limit, excluding, isHead: isHead)
                : Self.pickHeads(limit, excluding)
        }
        let lease = """
            UPDATE trigger_runtime.deliveries d
            SET attempt = d.attempt + 1, lease_owner = p_owner, lease_token = gen_random_uuid(),
                run_after = clock_timestamp() + make_interval(secs => p_lease_seconds)
            WHERE d.id = ANY (picked)
            RETURNING d.*
            """
        let returned =
            switch shape.holding {
            case .none: lease
            case .joined: "WITH leased AS (\(lease)),\n\(holdLeased)\nSELECT * FROM leased"
            case .probed:
                "WITH leased AS (\(lease)),\nheld AS (\(Self.holding("leased")))\nSELECT leased.* FROM leased, held"
            }
        return """
            CREATE OR REPLACE FUNCTION trigger_runtime.claim(
                p_functions text[], p_limit integer, p_owner text, p_lease_seconds double precision)
            RETURNS SETOF trigger_runtime.deliveries
            LANGUAGE plpgsql
            SET enable_seqscan = off
            SET enable_sort = off
            SET enable_bitmapscan = off\(shape.perFunction ? "\nSET jit = off" : "")
            AS $$
            DECLARE
                picked bigint[];
            BEGIN
                PERFORM set_config('synchronous_commit', 'off', true);
                \(shape.chainRule == .antiJoin ? promoteWhenShort(pick) : promoteFirst(pick("p_limit", nil)))
                RETURN QUERY
                \(returned);
            END
            $$
            """
    }

    /// The claim's pick before migration 0009: due timers were promoted only when the pick came back short.
    private static func promoteWhenShort(_ pick: (String, String?) -> String) -> String {
        """
        picked := ARRAY(\(pick("p_limit", nil)));
            IF cardinality(picked) < p_limit AND EXISTS (
                SELECT FROM trigger_runtime.timers t WHERE t.due_at <= now() AND t.function_name = ANY (p_functions))
            THEN
                PERFORM trigger_runtime.promote_timers(p_functions, 1000, now());
                picked := picked || ARRAY(\(pick("p_limit - cardinality(picked)", "picked")));
            END IF;
        """
    }

    /// The claim's pick from migration 0009: due timers are promoted first, then join the pick in their turn (see
    /// ``probingChains``).
    private static func promoteFirst(_ pick: String) -> String {
        """
        IF EXISTS (
                SELECT FROM trigger_runtime.timers t WHERE t.due_at <= now() AND t.function_name = ANY (p_functions))
            THEN
                PERFORM trigger_runtime.promote_timers(p_functions, 1000, now());
            END IF;
            picked := ARRAY(\(pick));
        """
    }

    /// The order rule for a candidate delivery `c`: no earlier delivery of its (function, document) chain is ready.
    static let isChainHead = """
        NOT EXISTS (
                      SELECT FROM trigger_runtime.deliveries e
                      WHERE e.function_name = c.function_name AND e.document_key = c.document_key
                        AND e.status = 'ready' AND e.id < c.id)
        """

    /// The claim's pick (as in migration 0003): the due heads of each (function, document) chain, skipping rows
    /// other workers are claiming; `excluding` names an array of ids this claim already picked.
    private static func pickHeads(_ limit: String, _ excluding: String?) -> String {
        """
        SELECT c.id FROM trigger_runtime.deliveries c
                WHERE c.status = 'ready' AND c.run_after <= now() AND c.function_name = ANY (p_functions)
                  \(excluding.map { "AND c.id <> ALL (\($0)) " } ?? "")AND \(isChainHead)
                ORDER BY c.run_after, c.id
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
        """
    }
}
