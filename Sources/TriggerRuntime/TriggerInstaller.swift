import Foundation
import Logging
import PostgresNIO

/// Installs the capture triggers and schedules of a `FunctionRegistry`, idempotently.
///
/// Timer and scheduled functions are recorded in `trigger_runtime.functions` too (without a table); each
/// scheduled function gets its row in `trigger_runtime.schedules` (an unchanged schedule keeps its next run, a
/// changed one starts over from now, one no longer registered is removed), and pending timers of a function no
/// longer registered as a timer function are dead-lettered like its deliveries.
///
/// In one transaction: resolves each function's table and checks its key and filter columns and its row filter (a bad registration
/// is refused and changes nothing), replaces the rows of `trigger_runtime.functions` (so a function removed from
/// the registry stops capturing at once, and its waiting deliveries are dead-lettered), creates or replaces the `trigger_runtime_capture` trigger on each table
/// that has functions (firing on the operations they react to and, when each of them filters on a column's values,
/// with a `WHEN` that skips the rows none of them wants: see `ValueFilter`), and drops it from tables that no longer
/// have any. Requires the runtime's migrations.
public struct TriggerInstaller: Sendable {
    /// The name of the row trigger installed on each table.
    public static let triggerName = "trigger_runtime_capture"

    private let client: PostgresClient
    private let logger: Logger

    /// Creates an installer.
    /// - Parameters:
    ///   - client: A running client.
    ///   - logger: Logs the tables that gain or lose a trigger.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The DDL that binds `table` to the capture function, firing on `operations` only.
    ///
    /// Only the operations some function of the table reacts to: the capture function turns both rows into
    /// `jsonb` before it looks for a function, so a write no function wants would pay for that in the writer's
    /// transaction (measured: `onTripWebhook`'s outcome UPDATE of each inbox row took twice as long with the
    /// trigger firing for nothing).
    /// - Parameters:
    ///   - schema: The table's schema.
    ///   - table: The table's name.
    ///   - channel: The NOTIFY channel the trigger wakes workers on.
    ///   - operations: The row changes the table's functions react to (all three by default).
    ///   - when: A condition on `NEW` the row must meet for the capture function to be called at all (see
    ///     `ValueFilter`); `nil` calls it for every row. Only for triggers that do not fire on deletes.
    public static func triggerDDL(
        schema: String,
        table: String,
        channel: String,
        operations: Set<ChangeOperation> = Set(ChangeOperation.rowChanges),
        when: String? = nil
    ) -> String {
        precondition(when == nil || !operations.contains(.delete), "a DELETE trigger's WHEN cannot read NEW")
        let events = [(ChangeOperation.create, "INSERT"), (.update, "UPDATE"), (.delete, "DELETE")]
            .filter { operations.contains($0.0) }.map(\.1)
        return """
            CREATE OR REPLACE TRIGGER \(triggerName) AFTER \(events.joined(separator: " OR ")) ON \
            \(quoteIdentifier(schema)).\(quoteIdentifier(table)) FOR EACH ROW \
            \(when.map { "WHEN (\($0)) " } ?? "")EXECUTE FUNCTION trigger_runtime.capture('\(channel)')
            """
    }

    /// What the capture trigger of one table is installed from: the union of its functions' operations and, while
    /// every function so far has one, their `WHEN` conditions.
    struct TableCapture {
        var schema: String
        var name: String
        var operations: Set<ChangeOperation> = []
        /// `nil` once a function of the table has a condition a `WHEN` cannot express (or none).
        var conditions: [String]? = []

        /// The `WHEN` of the table's trigger: any of its functions' conditions, when all have one and none reacts
        /// to deletes (whose trigger has no `NEW`).
        var when: String? {
            guard let conditions, !conditions.isEmpty, !self.operations.contains(.delete) else { return nil }
            return Set(conditions).sorted().joined(separator: " OR ")
        }
    }

    /// Quotes an SQL identifier (`"a""b"`).
    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Installs (or re-installs) the triggers of `registry`.
    /// - Parameters:
    ///   - registry: The functions to capture for. An empty registry removes every binding and trigger.
    ///   - channel: The NOTIFY channel (the workers' `Configuration.channel`).
    public func install(_ registry: FunctionRegistry, channel: String = TriggerRuntime.Configuration.defaultChannel)
        async throws
    {
        try await self.install(registry.bindings, channel: channel)
    }

    /// Installs (or re-installs) the triggers of `bindings`: no function needs to be constructed for this.
    /// - Parameters:
    ///   - bindings: The functions to capture for. No bindings removes every binding and trigger.
    ///   - channel: The NOTIFY channel (the workers' `Configuration.channel`).
    public func install(
        _ bindings: [FunctionBinding],
        channel: String = TriggerRuntime.Configuration.defaultChannel
    ) async throws {
        try TriggerRuntime.Configuration.validateChannel(channel)
        let logger = self.logger
        try await self.client.withConnectionClosedOnFailure { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                try await connection.query("SELECT pg_advisory_xact_lock(\(Migrator.lockKey))", logger: logger)
                var tables: [UInt32: TableCapture] = [:]
                try await connection.query("DELETE FROM trigger_runtime.functions", logger: logger)
                for function in bindings {
                    guard case .rows(let trigger) = function.kind else {
                        try await Self.installTimeFunction(function, connection: connection, logger: logger)
                        continue
                    }
                    let table = try await Self.resolve(function, connection: connection, logger: logger)
                    let operations = ChangeOperation.rowChanges.filter { trigger.operations.contains($0) }
                    tables[table.oid, default: TableCapture(schema: table.schema, name: table.name)]
                        .operations.formUnion(operations)
                    if let condition = table.when {
                        tables[table.oid]?.conditions?.append(condition)
                    } else {
                        tables[table.oid]?.conditions = nil
                    }
                    try await connection.query(
                        """
                        INSERT INTO trigger_runtime.functions
                            (name, table_oid, table_name, operations, columns, key_column, row_filter)
                        VALUES (\(function.name.rawValue), \(Int64(table.oid))::oid, \(table.schema + "." + table.name),
                                \(operations.map(\.rawValue)), \(trigger.columns), \(trigger.keyColumn),
                                \(trigger.filter)::jsonpath)
                        """,
                        logger: logger
                    )
                }
                try await Self.removeUnscheduled(bindings, connection: connection, logger: logger)
                try await Self.deadLetterOrphanTimers(connection: connection, logger: logger)
                try await Self.deadLetterOrphans(connection: connection, logger: logger)
                for (_, table) in tables.sorted(by: { $0.key < $1.key }) {
                    let ddl = Self.triggerDDL(
                        schema: table.schema, table: table.name, channel: channel, operations: table.operations,
                        when: table.when)
                    try await connection.query(PostgresQuery(unsafeSQL: ddl), logger: logger)
                }
                let installed = try await connection.query(
                    """
                    SELECT n.nspname, c.relname, c.oid::int8 FROM pg_trigger t
                    JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE t.tgname = \(Self.triggerName)
                    """,
                    logger: logger
                )
                var stale: [(String, String)] = []
                for try await (schema, name, oid) in installed.decode((String, String, Int64).self)
                where tables[UInt32(oid)] == nil {
                    stale.append((schema, name))
                }
                for (schema, name) in stale {
                    let sql = "DROP TRIGGER \(Self.triggerName) ON \(Self.quoteIdentifier(schema)).\(Self.quoteIdentifier(name))"
                    try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                    logger.info("removed capture trigger", metadata: ["trigger.table": "\(schema).\(name)"])
                }
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Dead-letters the waiting deliveries of functions that are no longer registered: no worker would ever claim
    /// them. Deliveries a worker holds under a live lease are left to it (an older worker in a rolling upgrade may
    /// still run the function); `events retry` replays the dead-lettered ones once the function is registered again.
    private static func deadLetterOrphans(connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            WITH orphaned AS (
                UPDATE trigger_runtime.deliveries d
                SET status = 'dead', lease_owner = NULL, lease_token = NULL, run_after = now(),
                    last_error = 'function ' || d.function_name || ' is no longer registered: dead-lettered when '
                        || 'the registry was installed; register it again and run `events retry` to replay'
                WHERE d.status = 'ready' AND (d.lease_token IS NULL OR d.run_after < now())
                  AND NOT EXISTS (SELECT FROM trigger_runtime.functions f WHERE f.name = d.function_name)
                RETURNING d.function_name
            )
            SELECT function_name, count(*)::int8 FROM orphaned GROUP BY function_name ORDER BY function_name
            """,
            logger: logger
        )
        for try await (function, count) in rows.decode((String, Int64).self) {
            logger.warning(
                "dead-lettered the waiting deliveries of a function that is no longer registered",
                metadata: ["trigger.function": "\(function)", "trigger.deliveries": "\(count)"]
            )
        }
    }

    private static func resolve(
        _ function: FunctionBinding,
        connection: PostgresConnection,
        logger: Logger
    ) async throws -> (oid: UInt32, schema: String, name: String, when: String?) {
        guard let trigger = function.trigger, !trigger.operations.isEmpty else {
            throw TriggerRuntimeError(.invalidRegistration, "function \(function.name) reacts to no operation")
        }
        guard trigger.operations.isSubset(of: ChangeOperation.rowChanges) else {
            throw TriggerRuntimeError(
                .invalidRegistration, "function \(function.name): a row trigger reacts to create, update and delete only")
        }
        let rows = try await connection.query(
            """
            SELECT c.oid::int8, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.oid = to_regclass(\(trigger.table)) AND c.relkind IN ('r', 'p')
            """,
            logger: logger
        )
        var found: (UInt32, String, String)?
        for try await (oid, schema, name) in rows.decode((Int64, String, String).self) {
            found = (UInt32(oid), schema, name)
        }
        guard let (oid, schema, name) = found else {
            throw TriggerRuntimeError(
                .invalidRegistration,
                "function \(function.name): table \(trigger.table) does not exist (create it in a migration first)"
            )
        }
        let wanted = [trigger.keyColumn] + (trigger.columns ?? [])
        let columns = try await connection.query(
            """
            SELECT a.attname::text, t.typcategory::text FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
            WHERE a.attrelid = \(Int64(oid))::oid AND a.attnum > 0 AND NOT a.attisdropped
            """,
            logger: logger
        )
        var existing: [String: String] = [:]
        for try await (column, category) in columns.decode((String, String).self) { existing[column] = category }
        let valueColumn = trigger.valueFilter.map(\.column)
        for column in wanted + (valueColumn.map { [$0] } ?? []) where existing[column] == nil {
            throw TriggerRuntimeError(
                .invalidRegistration,
                "function \(function.name): table \(schema).\(name) has no column \(column)"
            )
        }
        if let filter = trigger.filter {
            do {
                try await connection.query("SELECT \(filter)::jsonpath", logger: logger)
            } catch {
                throw TriggerRuntimeError(
                    .invalidRegistration,
                    "function \(function.name): its filter \(filter) is not a SQL/JSON path predicate PostgreSQL reads: "
                        + "\(String(reflecting: error))"
                )
            }
        }
        // A string's or an enum's `jsonb` is the string of its text, so the `WHEN` and the path agree; for any
        // other type (a json column's array, a number) they may not, and the capture function alone decides.
        let when = trigger.valueFilter.flatMap { filter in
            ["S", "E"].contains(existing[filter.column]) ? filter.whenCondition : nil
        }
        return (oid, schema, name, when)
    }
}
