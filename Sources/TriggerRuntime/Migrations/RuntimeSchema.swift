/// The SQL of the runtime's migrations.
///
/// The queue tables get aggressive autovacuum settings: claimed-and-deleted rows pile up at the queue's head and
/// would make every claim walk dead tuples until the next VACUUM.
enum RuntimeSchema {
    static let queueStorage = """
        fillfactor = 90, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000, \
        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 5000, \
        autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 5000, autovacuum_vacuum_cost_delay = 0
        """

    static let queue: [String] = [
        """
        CREATE TABLE trigger_runtime.deliveries (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            function_name text NOT NULL,
            table_name text NOT NULL,
            operation text NOT NULL CHECK (operation IN ('create', 'update', 'delete')),
            document_key text NOT NULL,
            old_row jsonb,
            new_row jsonb,
            committed_at timestamptz NOT NULL DEFAULT now(),
            attempt integer NOT NULL DEFAULT 0,
            run_after timestamptz NOT NULL DEFAULT now(),
            status text NOT NULL DEFAULT 'ready' CHECK (status IN ('ready', 'dead')),
            lease_owner text,
            lease_token uuid,
            last_error text
        ) WITH (\(queueStorage))
        """,
        // The claim scans this index in (run_after, id) order; the query can only be answered from it.
        "CREATE INDEX deliveries_ready_idx ON trigger_runtime.deliveries (run_after, id) WHERE status = 'ready'",
        // "Is an earlier delivery of this document still pending?" — the per-document ordering check.
        """
        CREATE INDEX deliveries_document_idx ON trigger_runtime.deliveries (function_name, document_key, id) \
        WHERE status = 'ready'
        """,
        "CREATE INDEX deliveries_dead_idx ON trigger_runtime.deliveries (function_name, id) WHERE status = 'dead'",
        """
        CREATE TABLE trigger_runtime.done (
            id bigint PRIMARY KEY,
            function_name text NOT NULL,
            table_name text NOT NULL,
            operation text NOT NULL,
            document_key text NOT NULL,
            committed_at timestamptz NOT NULL,
            attempt integer NOT NULL,
            lease_owner text,
            done_at timestamptz NOT NULL DEFAULT now()
        ) WITH (\(queueStorage))
        """,
        "CREATE INDEX done_done_at_idx ON trigger_runtime.done (done_at)",
        // Claims a batch: the head of each (function, document) chain, ready and due, skipping rows other workers
        // are claiming. The planner settings make a sequential scan or a sort impossible, so the plan cannot flip
        // when the table starts empty with "empty" statistics and then grows.
        """
        CREATE FUNCTION trigger_runtime.claim(
            p_functions text[], p_limit integer, p_owner text, p_lease_seconds double precision)
        RETURNS SETOF trigger_runtime.deliveries
        LANGUAGE sql
        SET enable_seqscan = off
        SET enable_sort = off
        SET enable_bitmapscan = off
        AS $$
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
        """,
    ]

    static let functions: [String] = [
        """
        CREATE TABLE trigger_runtime.functions (
            name text PRIMARY KEY,
            table_oid oid NOT NULL,
            table_name text NOT NULL,
            operations text[] NOT NULL,
            columns text[],
            key_column text NOT NULL,
            installed_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        "CREATE INDEX functions_table_oid_idx ON trigger_runtime.functions (table_oid)",
        // One generic trigger function for every table.
        captureFunction(create: "CREATE", notifyWhen: "FOUND"),
    ]

    /// The capture trigger function: one INSERT (a row per matching function), then NOTIFY with an empty payload
    /// when `notifyWhen` holds (PostgreSQL folds identical notifications, so a transaction notifies once). `*=`
    /// compares the rows' binary images, so it works for columns without an equality operator (json, point).
    /// Migrations 0002 and 0004 differ only in `notifyWhen`; 0006 adds the functions' row filters.
    static func captureFunction(create: String, notifyWhen: String, rowFilter: Bool = false) -> String {
        """
        \(create) FUNCTION trigger_runtime.capture() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            op text;
            before_row jsonb;
            after_row jsonb;
        BEGIN
            IF TG_OP = 'INSERT' THEN
                op := 'create';
                after_row := to_jsonb(NEW);
            ELSIF TG_OP = 'UPDATE' THEN
                IF OLD *= NEW THEN
                    RETURN NULL;
                END IF;
                op := 'update';
                before_row := to_jsonb(OLD);
                after_row := to_jsonb(NEW);
            ELSE
                op := 'delete';
                before_row := to_jsonb(OLD);
            END IF;
            INSERT INTO trigger_runtime.deliveries
                (function_name, table_name, operation, document_key, old_row, new_row)
            SELECT f.name, f.table_name, op, coalesce(coalesce(after_row, before_row) ->> f.key_column, ''),
                before_row, after_row
            FROM trigger_runtime.functions f
            WHERE f.table_oid = TG_RELID AND op = ANY (f.operations)
              AND (op <> 'update' OR f.columns IS NULL OR EXISTS (
                  SELECT FROM unnest(f.columns) AS c(name)
                  WHERE before_row -> c.name IS DISTINCT FROM after_row -> c.name))\(rowFilter ? Self.rowFilterCondition : "");
            IF \(notifyWhen) THEN
                PERFORM pg_notify(TG_ARGV[0], '');
            END IF;
            RETURN NULL;
        END
        $$
        """
    }

    /// The capture's condition for ``Trigger/filter`` (migration 0006).
    static let rowFilterCondition = """

          AND (f.row_filter IS NULL OR jsonb_path_match(coalesce(after_row, before_row), f.row_filter))
    """

    /// Migration 0006: a function may fire only for rows matching a SQL/JSON path predicate (``Trigger/filter``).
    ///
    /// Why: HyperTrack's location events are most of the webhook inbox (every online driver, every few seconds) and
    /// the API applies them as it stores them; only the inbox's other events need a function. Filtering in the
    /// capture trigger costs one `jsonb_path_match` on the row it already has as `jsonb`; a delivery per location
    /// event cost the worker a claim, a transaction and an outcome update each (270 events/s was the worker's
    /// ceiling in the 10,000-driver simulation).
    static let rowFilters: [String] = [
        "ALTER TABLE trigger_runtime.functions ADD COLUMN row_filter jsonpath",
        captureFunction(
            create: "CREATE OR REPLACE",
            notifyWhen: awakeNotifyCondition,
            rowFilter: true
        ),
    ]
}
