import Logging
import PostgresNIO

/// Applies versioned migrations, group by group, in one transaction under an advisory lock.
///
/// History is recorded in `trigger_runtime.schema_migrations`. Each group's recorded history must be a prefix of
/// the code's list for that group; anything else (a renamed, reordered or removed migration) is refused with
/// `divergentHistory` and changes nothing.
///
/// ```swift
/// let report = try await Migrator(client: client, logger: logger)
///     .migrate(TriggerRuntime.migrations + App.migrations)
/// ```
public struct Migrator: Sendable {
    /// What a migration run found and did.
    public struct Report: Sendable, Hashable {
        /// Migrations that were pending before the run, in the order they were (or, for a dry run, would be) applied.
        public var pending: [Migration]
        /// Whether `pending` was applied (`false` for a dry run).
        public var applied: Bool
    }

    /// The advisory lock key shared by every migrator (two workers starting together queue on it).
    static let lockKey: Int64 = 0x7472_6967_6d69_6772

    private let client: PostgresClient
    private let logger: Logger

    /// Creates a migrator.
    /// - Parameters:
    ///   - client: A running client.
    ///   - logger: Logs each applied migration.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Applies the pending migrations of every group, or with `dryRun` only reports them (nothing is changed).
    /// - Parameters:
    ///   - migrations: All migrations, each group in order. Groups are applied in order of first appearance.
    ///   - dryRun: Report pending migrations and roll back.
    /// - Returns: The pending migrations and whether they were applied.
    @discardableResult
    public func migrate(_ migrations: [Migration], dryRun: Bool = false) async throws -> Report {
        try Self.validate(migrations)
        let logger = self.logger
        return try await self.client.withConnectionClosedOnFailure { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
                try await connection.query("CREATE SCHEMA IF NOT EXISTS trigger_runtime", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS trigger_runtime.schema_migrations (
                        group_name text NOT NULL,
                        position integer NOT NULL,
                        name text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (group_name, position)
                    )
                    """,
                    logger: logger
                )
                var pending: [(position: Int, migration: Migration)] = []
                for (group, list) in Self.grouped(migrations) {
                    let recorded = try await Self.history(group: group, connection: connection, logger: logger)
                    let missing = try Self.pending(group: group, code: list, recorded: recorded)
                    pending += missing.enumerated().map { (recorded.count + $0.offset, $0.element) }
                }
                if dryRun {
                    try await connection.query("ROLLBACK", logger: logger)
                    return Report(pending: pending.map(\.migration), applied: false)
                }
                for (position, migration) in pending {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        """
                        INSERT INTO trigger_runtime.schema_migrations (group_name, position, name)
                        VALUES (\(migration.group), \(position), \(migration.name))
                        """,
                        logger: logger
                    )
                    logger.info(
                        "applied migration",
                        metadata: ["migration.group": "\(migration.group)", "migration.name": "\(migration.name)"]
                    )
                }
                try await connection.query("COMMIT", logger: logger)
                return Report(pending: pending.map(\.migration), applied: true)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// The recorded history of every group, in order.
    /// Empty when nothing was ever migrated.
    public func history() async throws -> [(group: String, name: String)] {
        let exists = try await self.client.query(
            "SELECT to_regclass('trigger_runtime.schema_migrations') IS NOT NULL",
            logger: self.logger
        )
        for try await found in exists.decode(Bool.self) where !found { return [] }
        let rows = try await self.client.query(
            "SELECT group_name, name FROM trigger_runtime.schema_migrations ORDER BY group_name, position",
            logger: self.logger
        )
        var result: [(group: String, name: String)] = []
        for try await (group, name) in rows.decode((String, String).self) {
            result.append((group, name))
        }
        return result
    }

    static func validate(_ migrations: [Migration]) throws {
        var seen = Set<[String]>()
        for migration in migrations {
            guard !migration.group.isEmpty, !migration.name.isEmpty else {
                throw TriggerRuntimeError(.invalidMigrations, "a migration has an empty group or name")
            }
            guard !migration.statements.isEmpty else {
                throw TriggerRuntimeError(.invalidMigrations, "migration \(migration.group)/\(migration.name) has no statements")
            }
            guard seen.insert([migration.group, migration.name]).inserted else {
                throw TriggerRuntimeError(.invalidMigrations, "migration \(migration.group)/\(migration.name) is listed twice")
            }
        }
    }

    static func grouped(_ migrations: [Migration]) -> [(String, [Migration])] {
        var order: [String] = []
        var groups: [String: [Migration]] = [:]
        for migration in migrations {
            if groups[migration.group] == nil { order.append(migration.group) }
            groups[migration.group, default: []].append(migration)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }

    /// The code's migrations after the recorded prefix; throws if the recorded history is not a prefix.
    static func pending(group: String, code: [Migration], recorded: [String]) throws -> [Migration] {
        for (position, name) in recorded.enumerated() {
            guard position < code.count else {
                throw TriggerRuntimeError(
                    .divergentHistory,
                    "group \(group): the database has migration \(name) at position \(position), the code has none"
                )
            }
            guard code[position].name == name else {
                throw TriggerRuntimeError(
                    .divergentHistory,
                    "group \(group): the database has \(name) at position \(position), the code has \(code[position].name)"
                )
            }
        }
        return Array(code.dropFirst(recorded.count))
    }

    private static func history(group: String, connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let rows = try await connection.query(
            "SELECT name FROM trigger_runtime.schema_migrations WHERE group_name = \(group) ORDER BY position",
            logger: logger
        )
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }
}
