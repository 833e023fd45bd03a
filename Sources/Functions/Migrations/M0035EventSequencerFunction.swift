import TriggerRuntime

/// The order event log's sequencer as one function, `order_events_sequence()`, called in one statement.
///
/// **Why.** The sequencer (``OrderEventLog/sequence()``) is on the path of every event a stream shows: a driver sees
/// an offer only once the API's hub has given it a position and read it. It was seven round trips: a check of the
/// queue, then `BEGIN`, the sequencer row's lock, the take of the queue, the last position's update, the `NOTIFY` and
/// `COMMIT`, the hub waiting for each answer. On an idle machine a round trip costs a fraction of a millisecond; under
/// the 4,000-ride city on two busy cores each is a wake of a PostgreSQL backend and of the API's event loop, and the
/// offer's last step (its transaction → seen on a driver's stream) took p50 40 ms, p99 231-261 ms where it took 8 ms
/// idle (BENCHMARKS.md, 42nd session). Here the hub waits for one answer, and PostgreSQL runs the same statements
/// in the statement's own transaction.
///
/// The same rules as before: the queue's check first (nothing is locked when nothing waits); the sequencer's row lock
/// taken before the take, which runs as a statement of its own and so sees what the previous sequencer committed
/// before it released the lock (a `VOLATILE` function's statements each take a new snapshot); the take planned at
/// each call (`EXECUTE`: a plan kept from an empty queue could read a long queue whole, the 26th session's lesson,
/// runtime migration 0013), as the unnamed statement it replaces was. Additive, for a rolling upgrade: the previous
/// release's hub sends its own statements, and both take the same row lock.
enum M0035EventSequencerFunction {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0035_event_sequencer_function",
        statements: [Self.function(create: "CREATE", notify: "PERFORM pg_notify('\(OrderEventLog.channel)', '');")]
    )

    /// The function's definition; `notify` is what it runs after giving positions (migration 0037 notifies only
    /// while some hub listens).
    static func function(create: String, notify: String) -> String {
        """
        \(create) FUNCTION order_events_sequence() RETURNS integer
        LANGUAGE plpgsql VOLATILE
        AS $$
        DECLARE
            v_last bigint;
            v_sequenced integer;
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM order_event_queue) THEN
                RETURN 0;
            END IF;
            SELECT last_position INTO v_last FROM order_event_sequencer FOR UPDATE;
            EXECUTE 'WITH taken AS (
                    DELETE FROM order_event_queue q
                    WHERE q.id IN (SELECT id FROM order_event_queue ORDER BY id LIMIT \(OrderEventLog.batch))
                    RETURNING q.id)
                INSERT INTO order_event_positions (position, event_id)
                SELECT $1 + row_number() OVER (ORDER BY id), id FROM taken'
                USING v_last;
            GET DIAGNOSTICS v_sequenced = ROW_COUNT;
            IF v_sequenced > 0 THEN
                UPDATE order_event_sequencer SET last_position = v_last + v_sequenced;
                \(notify)
            END IF;
            RETURN v_sequenced;
        END
        $$
        """
    }
}
