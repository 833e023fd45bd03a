import Foundation
import PostgresNIO

/// ``PostgresTimers``' two statements, prepared once per pooled connection.
///
/// **Why.** Sent unnamed, the schedule was parsed and planned at every call: in the 23rd session's 4,000-ride city
/// (`pg_stat_statements` with `track_planning`) it planned for 1.1 ms of each of its 8,000 calls (every order's
/// dispatch window and rounds, every ride's arrival check), more than it ran. The parameters are typed here: a
/// `NULL` due instant or delay would leave PostgreSQL nothing to infer them from.
enum TimerStatements {
    /// Writes (or, with `keep`, leaves) the timer through `trigger_runtime.schedule_timer()` (runtime migration 0014,
    /// whose doc comment says what it does and why: v2 was its body as one statement); answers whether it wrote. A
    /// function not installed as a timer function raises `TR001` (``RuntimeSchema/unregisteredTimerState``).
    ///
    /// **Why a function** (v3): an application's statement can call it too, setting its timers with its own rows
    /// in one round trip (the API's booking); one text of the write serves both.
    struct Schedule: PostgresPreparedStatement {
        static let name = "trigger_runtime_timer_schedule_v3"
        static let sql = """
            SELECT trigger_runtime.schedule_timer($1, $2, $3, $4, coalesce($5, now() + make_interval(secs => $6)),
                                                  $7::jsonb, $8)
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .text, .text, .text, .bool, .timestamptz, .float8, .text, .text,
        ]
        typealias Row = Bool

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

        func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
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
