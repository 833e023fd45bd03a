import TriggerRuntime

/// The order event log's positions move out of `order_events` into a narrow table, so an event is written once.
///
/// **Why.** The sequencer (``OrderEventLog/sequence()``) gave each committed event its position by updating its row.
/// `position` was in four of `order_events`' seven indexes, so the update could not be HOT: each event was written
/// twice, a full copy of its row (its JSON document) and an entry in six indexes each time. Read from the 25th
/// session's 10-minute city (12,000 rides, `pg_stat_statements`): the events' `INSERT` was PostgreSQL's largest
/// statement (353,443 rows, 178 s) and the sequencer's `UPDATE` its tenth (93.5 s, 13 ms for 78 rows a pass).
///
/// Now:
/// - `order_event_queue` holds the ids of events waiting for a position. The writers (`order_event_append`,
///   `order_events_for_positions`) add to it in the event's own transaction, so an event that commits is queued by
///   the same commit, and a rolled-back one never is.
/// - `order_event_positions` maps each position to its event. The sequencer moves queued ids into it, in id order,
///   under the sequencer's row lock as before: positions still become visible in increasing order.
/// - `order_events.position` is `-1` for every new event (its default), so no new event enters the indexes on it:
///   the unique index becomes a partial one of the old positions (`>= 0`), the unsequenced one gets no entries, and
///   `(order_id, position)`, `(rider_id, position)` and `(driver_id, position)` serve the stream's scoped reads by
///   their leading column (their positions through `order_event_positions.event_id`).
/// An event costs its row, five index entries, a queue row and a position row (three narrow entries), against two
/// wide rows and thirteen entries.
///
/// **Additive, for a rolling upgrade** (deploy/README.md): the previous release's sequencer finds no event without a
/// position and does nothing (it cannot give an event a second position); its streams read the old positions and no
/// new events until its processes are replaced, and a client resuming on a new process gets what it missed (the
/// positions continue from the same `last_position`). Nothing is lost or delivered twice. A later release drops
/// the column and its indexes.
enum M0026EventPositions {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0026_event_positions",
        statements: [
            """
            CREATE TABLE order_event_queue (id bigint PRIMARY KEY) WITH (
                autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
                autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 5000,
                autovacuum_vacuum_cost_delay = 0)
            """,
            """
            CREATE TABLE order_event_positions (
                position bigint PRIMARY KEY,
                event_id bigint NOT NULL UNIQUE
            )
            """,
            """
            INSERT INTO order_event_positions (position, event_id)
            SELECT position, id FROM order_events WHERE position IS NOT NULL
            """,
            "INSERT INTO order_event_queue (id) SELECT id FROM order_events WHERE position IS NULL",
            "ALTER TABLE order_events DROP CONSTRAINT order_events_position_key",
            "CREATE INDEX order_events_position_idx ON order_events (position) WHERE position >= 0",
            "UPDATE order_events SET position = -1 WHERE position IS NULL",
            "ALTER TABLE order_events ALTER COLUMN position SET DEFAULT -1",
            Self.append(notify: Self.notify),
            // 0020's function with the queue (and 0025's setting, which `CREATE OR REPLACE` would otherwise drop).
            Self.forPositions(notify: Self.notify),
        ]
    )

    /// 0026's notification of the hubs, as the writers sent it until ``M0036EventHubWakefulness``.
    static let notify = "PERFORM pg_notify('\(OrderEventLog.channel)', '');"

    /// `order_event_append`: one event written and queued, then `notify` (a PL/pgSQL statement).
    static func append(notify: String) -> String {
        """
        CREATE OR REPLACE FUNCTION order_event_append(
            p_order uuid, p_kind text, p_rider uuid, p_driver uuid, p_payload jsonb)
        RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
            WITH event AS (
                INSERT INTO order_events (order_id, kind, rider_id, driver_id, payload)
                VALUES (p_order, p_kind, p_rider, p_driver, p_payload)
                RETURNING id
            )
            INSERT INTO order_event_queue (id) SELECT id FROM event;
            \(notify)
        END
        $$
        """
    }

    /// `order_events_for_positions` (0020's function with the queue, and 0025's plan setting), `notify` run when it
    /// wrote an event.
    static func forPositions(notify: String) -> String {
        """
        CREATE OR REPLACE FUNCTION order_events_for_positions(moved driver_positions[]) RETURNS void
        LANGUAGE plpgsql
        SET plan_cache_mode = force_generic_plan
        AS $$
        DECLARE
            emitted int;
        BEGIN
            -- order_event_append's INSERT and NOTIFY, set-based.
            WITH open AS (
                SELECT o.id, o.rider_id, m.driver_id, m.lat, m.lng, m.recorded_at
                FROM unnest(moved) AS m JOIN orders o ON o.driver_id = m.driver_id
                WHERE o.status NOT IN ('NEW', 'COMPLETED', 'CANCELLED')
            ),
            throttled AS (
                INSERT INTO order_position_throttle AS t (order_id, emitted_at)
                SELECT id, clock_timestamp() FROM open ORDER BY id
                ON CONFLICT (order_id) DO UPDATE SET emitted_at = excluded.emitted_at
                    WHERE t.emitted_at <= excluded.emitted_at - interval '1 second'
                RETURNING order_id
            ),
            events AS (
                INSERT INTO order_events (order_id, kind, rider_id, driver_id, payload)
                SELECT p.id, 'driver.position', p.rider_id, p.driver_id,
                       jsonb_build_object('order_id', p.id, 'lat', p.lat, 'lng', p.lng,
                                          'recorded_at', p.recorded_at)
                FROM open p JOIN throttled t ON t.order_id = p.id
                ORDER BY p.id
                RETURNING id
            )
            INSERT INTO order_event_queue (id) SELECT id FROM events;
            GET DIAGNOSTICS emitted = ROW_COUNT;
            IF emitted > 0 THEN
                \(notify)
            END IF;
        END
        $$
        """
    }
}
