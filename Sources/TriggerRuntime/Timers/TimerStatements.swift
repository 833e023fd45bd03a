import Foundation
import PostgresNIO

/// ``PostgresTimers``' two statements, prepared once per pooled connection.
///
/// **Why.** Sent unnamed, the schedule was parsed and planned at every call: in the 23rd session's 4,000-ride city
/// (`pg_stat_statements` with `track_planning`) it planned for 1.1 ms of each of its 8,000 calls (every order's
/// dispatch window and rounds, every ride's arrival check), more than it ran. The parameters are typed here: a
/// `NULL` due instant or delay would leave PostgreSQL nothing to infer them from.
enum TimerStatements {
    /// Writes (or, with `keep`, leaves) the timer; a due one not yet claimed is a delivery with attempt 0 and no
    /// lease, which `replace` removes with the pending one (at most one of the two exists) and `keep` keeps.
    /// Notifies the workers' channel when it wrote, unless a worker is awake on the channel: the capture trigger's
    /// rule (runtime migration 0004), for the same reason. A paced worker claims every `claimInterval` and every
    /// claim promotes the due timers; one that stops pacing settles (waits for every writer that may have skipped)
    /// and, idle, reads when the earliest timer is due. The transaction's id is taken before the check, so a
    /// withdrawal's horizon covers this writer whatever order PostgreSQL evaluates the statement's parts in.
    /// Answers whether the function is a registered timer function and how many timers it wrote.
    ///
    /// **Why** (v2; v1 always notified): a `NOTIFY` takes a database-wide lock at commit and holds it through the
    /// commit's WAL flush. In the 4,000-ride city every dispatch committed one (its round and window timers), as did
    /// every ride's arrival checks, queueing each behind the others' and the event sequencer's: 8,000 in 396 s of
    /// rides (55th session, run Kd2), the most of any writer once the worker stayed paced through the stream. Tried in
    /// the 54th session without a measured gain, when the worker was declared only a fifth of the time.
    struct Schedule: PostgresPreparedStatement {
        static let name = "trigger_runtime_timer_schedule_v2"
        static let sql = """
            WITH f AS (SELECT FROM trigger_runtime.functions WHERE name = $1 AND kind = 'timer'),
            promoted AS (
                SELECT id FROM trigger_runtime.deliveries
                WHERE function_name = $1 AND document_key = $2 AND timer_key = $3
                  AND status = 'ready' AND attempt = 0 AND lease_token IS NULL
                FOR UPDATE
            ),
            unpromoted AS (
                DELETE FROM trigger_runtime.deliveries
                WHERE id IN (SELECT id FROM promoted) AND $4
                RETURNING id
            ),
            written AS (
                INSERT INTO trigger_runtime.timers (function_name, document_key, timer_key, due_at, payload)
                SELECT $1, $2, $3, coalesce($5, now() + make_interval(secs => $6)), $7::jsonb
                FROM f WHERE $4 OR NOT EXISTS (SELECT FROM promoted)
                ON CONFLICT (function_name, document_key, timer_key) DO UPDATE
                SET due_at = excluded.due_at, payload = excluded.payload, created_at = now()
                WHERE $4
                RETURNING 1
            ),
            notified AS (
                SELECT pg_notify($8, '') FROM written
                WHERE CASE WHEN pg_current_xact_id() IS NULL THEN true
                      ELSE current_setting('transaction_isolation') <> 'read committed' OR NOT EXISTS (
                          SELECT FROM trigger_runtime.awake_workers a WHERE a.channel = $8 AND a.until > clock_timestamp())
                      END
                LIMIT 1
            )
            SELECT (SELECT count(*) FROM f)::int8, (SELECT count(*) FROM written)::int8,
                   (SELECT count(*) FROM notified)::int8, (SELECT count(*) FROM unpromoted)::int8
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .text, .text, .text, .bool, .timestamptz, .float8, .text, .text,
        ]
        typealias Row = (registered: Int64, written: Int64)

        var function: String
        var document: String
        var key: String
        var replace: Bool
        /// Due at this instant, or (`nil`) `delay` seconds after the transaction's start.
        var dueAt: Date?
        var delay: Double?
        /// JSON.
        var payload: String
        var channel: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 8)
            bindings.append(self.function)
            bindings.append(self.document)
            bindings.append(self.key)
            bindings.append(self.replace)
            bindings.append(self.dueAt)
            bindings.append(self.delay)
            bindings.append(self.payload)
            bindings.append(self.channel)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (registered, written, _, _) = try row.decode((Int64, Int64, Int64, Int64).self)
            return (registered, written)
        }
    }

    /// Removes the pending timer, or its due delivery not yet claimed (waking its chain's next delivery, migration
    /// 0007); answers how many it removed.
    struct Cancel: PostgresPreparedStatement {
        static let name = "trigger_runtime_timer_cancel_v1"
        static let sql = """
            WITH pending AS (
                DELETE FROM trigger_runtime.timers
                WHERE function_name = $1 AND document_key = $2 AND timer_key = $3
                RETURNING 1
            ),
            promoted AS (
                DELETE FROM trigger_runtime.deliveries
                WHERE function_name = $1 AND document_key = $2 AND timer_key = $3
                  AND status = 'ready' AND attempt = 0 AND lease_token IS NULL
                RETURNING id, function_name, document_key
            ),
            woken AS (\(RuntimeSchema.waking("promoted")))
            SELECT ((SELECT count(*) FROM pending) + (SELECT count(*) FROM promoted))::int8 FROM woken
            """
        static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text]
        typealias Row = Int64

        var function: String
        var document: String
        var key: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(self.function)
            bindings.append(self.document)
            bindings.append(self.key)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }
}
