/// One versioned schema change: a group, a stable name, and the SQL statements it runs in order.
///
/// Names are explicit and never derived from a type; the recorded history must match the code's list.
public struct Migration: Sendable, Hashable {
    /// The migration group (`trigger_runtime`, `app`, …); each group has its own ordered history.
    public var group: String
    /// The stable name, e.g. `0001_create_outbox`.
    public var name: String
    /// Statements run in order, in one transaction with the rest of the pending migrations.
    public var statements: [String]

    /// Creates a migration.
    /// - Parameters:
    ///   - group: The migration group.
    ///   - name: The stable name.
    ///   - statements: The SQL statements, run in order.
    public init(group: String, name: String, statements: [String]) {
        self.group = group
        self.name = name
        self.statements = statements
    }
}
