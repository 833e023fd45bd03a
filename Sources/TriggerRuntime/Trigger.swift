/// What a function reacts to: a table, the operations on it, and an optional filter.
///
/// ```swift
/// let trigger = Trigger.update("orders", columns: ["status"])
/// ```
public struct Trigger: Sendable, Hashable {
    /// The table, unqualified (resolved in the application's schema) or `schema.table`.
    public var table: String
    /// The operations that fire the function. `write` is all three.
    public var operations: Set<ChangeOperation>
    /// For updates: fire only when at least one of these columns changed. `nil` fires on any change.
    public var columns: [String]?
    /// The column whose value identifies the document (the ordering key). Defaults to `id`.
    public var keyColumn: String
    /// A SQL/JSON path predicate the row (the new row; the old one for deletes) must match for the function to fire,
    /// e.g. `$.type != "location"`; `nil` fires on every row. Evaluated by the capture trigger with
    /// `jsonb_path_match` on the row it already has as `jsonb`, so a filtered-out row costs no delivery, no claim
    /// and no transaction of a worker. Checked when the registry is installed (a predicate PostgreSQL cannot parse
    /// fails the installation).
    public var filter: String?

    /// Creates a trigger.
    /// - Parameters:
    ///   - table: The table, unqualified or `schema.table`.
    ///   - operations: The operations that fire the function.
    ///   - columns: For updates, the columns of which one must change; `nil` for any change.
    ///   - keyColumn: The column that identifies the document.
    ///   - filter: A SQL/JSON path predicate on the row (see ``filter``); `nil` for every row.
    public init(
        table: String,
        operations: Set<ChangeOperation>,
        columns: [String]? = nil,
        keyColumn: String = "id",
        filter: String? = nil
    ) {
        self.table = table
        self.operations = operations
        self.columns = columns
        self.keyColumn = keyColumn
        self.filter = filter
    }

    /// This trigger, firing only for rows that match `predicate` (a SQL/JSON path predicate, see ``filter``).
    public func matching(_ predicate: String) -> Trigger {
        var trigger = self
        trigger.filter = predicate
        return trigger
    }

    /// This trigger, firing only for rows whose `column` (a plain identifier) holds one of `values`: the ``filter``
    /// `$.column == "a" || $.column == "b"`, each value quoted as a JSON string. For functions that act on a few
    /// values of a status, so the statuses they skip cost no delivery.
    public func matching(_ column: String, in values: [String]) -> Trigger {
        precondition(!values.isEmpty, "a filter on \(column) needs at least one value")
        func quoted(_ value: String) -> String {
            var text = "\""
            for character in value {
                if character == "\\" || character == "\"" { text.append("\\") }
                text.append(character)
            }
            return text + "\""
        }
        return self.matching(values.map { "$.\(column) == \(quoted($0))" }.joined(separator: " || "))
    }

    /// Fires on inserts into `table`.
    public static func create(_ table: String, keyColumn: String = "id") -> Trigger {
        Trigger(table: table, operations: [.create], keyColumn: keyColumn)
    }

    /// Fires on updates of `table` that change anything, or one of `columns` when given.
    public static func update(_ table: String, columns: [String]? = nil, keyColumn: String = "id") -> Trigger {
        Trigger(table: table, operations: [.update], columns: columns, keyColumn: keyColumn)
    }

    /// Fires on deletes from `table`.
    public static func delete(_ table: String, keyColumn: String = "id") -> Trigger {
        Trigger(table: table, operations: [.delete], keyColumn: keyColumn)
    }

    /// Fires on every insert, update (filtered by `columns` when given) and delete of `table`.
    public static func write(_ table: String, columns: [String]? = nil, keyColumn: String = "id") -> Trigger {
        Trigger(table: table, operations: [.create, .update, .delete], columns: columns, keyColumn: keyColumn)
    }
}
