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
    /// fails the installation). Setting it drops the ``matching(_:in:)`` condition it may have been written from.
    public var filter: String? {
        didSet { self.valueFilter = nil }
    }
    /// The condition ``matching(_:in:)`` or ``matching(_:notIn:)`` wrote ``filter`` from, which the installer can
    /// also put on the capture trigger's `WHEN` (see ``ValueFilter``).
    var valueFilter: ValueFilter?

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
    /// values of a status, so the statuses they skip cost no delivery. When every function of the table is filtered
    /// this way (and none reacts to deletes), the capture trigger gets a `WHEN` too and the rows no function wants
    /// do not call it at all.
    public func matching(_ column: String, in values: [String]) -> Trigger {
        self.matching(ValueFilter(column: column, values: values, excluded: false))
    }

    /// This trigger, firing only for rows whose `column` (a plain identifier) holds none of `values` (or is null):
    /// the ``filter`` `$.column != "a" && $.column != "b"`. For an inbox whose most frequent kind of row no
    /// function wants (HyperTrack's location events); with a `WHEN` on the capture trigger as for
    /// ``matching(_:in:)``.
    public func matching(_ column: String, notIn values: [String]) -> Trigger {
        self.matching(ValueFilter(column: column, values: values, excluded: true))
    }

    private func matching(_ condition: ValueFilter) -> Trigger {
        precondition(!condition.values.isEmpty, "a filter on \(condition.column) needs at least one value")
        var trigger = self.matching(condition.path)
        trigger.valueFilter = condition
        return trigger
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

/// A row filter on one column's text: rendered both as the SQL/JSON path the capture function evaluates (the
/// ``Trigger/filter``) and as a `WHEN` condition on `NEW` that the capture trigger evaluates before calling it.
///
/// Why both: the capture function turns the row into `jsonb` before it can evaluate a path, a plpgsql call per row.
/// HyperTrack's location events are nearly every row of the webhook inbox and no function wants them. Measured on
/// a 10,000-driver chaos run's database (BENCHMARKS.md, 20th session): inserting 400 location rows into the inbox
/// took 23.1 ms with the capture function called for each and 13.5 ms with the `WHEN` (medians of three alternated
/// 15 s rounds). The path stays the function's own filter; the `WHEN` is the union of the table's functions'
/// conditions, so it only decides whether the capture function runs at all.
///
/// The `WHEN` must never skip a row the path would match (a skipped row is a lost delivery), so it is written only
/// where the two agree exactly: a column whose type is a string or an enum (so its `jsonb` is a string, never an
/// array a lax path would unwrap), read as the path reads it (`to_jsonb(NEW.c) #>> '{}'`: a `char(n)`'s padding
/// kept, which `::text` would strip), compared byte-wise (`COLLATE "C"`, as a path compares strings), a null
/// matching `!=` as it does in a path.
struct ValueFilter: Sendable, Hashable {
    var column: String
    var values: [String]
    /// `notIn`: the column holds none of `values`.
    var excluded: Bool

    /// The SQL/JSON path predicate: `$.c == "a" || ...`, or `$.c != "a" && ...` when excluded.
    var path: String {
        func quoted(_ value: String) -> String {
            var text = "\""
            for character in value {
                if character == "\\" || character == "\"" { text.append("\\") }
                text.append(character)
            }
            return text + "\""
        }
        let comparison = self.excluded ? " != " : " == "
        return self.values.map { "$.\(self.column)" + comparison + quoted($0) }
            .joined(separator: self.excluded ? " && " : " || ")
    }

    /// The same condition on the trigger's `NEW` row, for a `WHEN` clause.
    var whenCondition: String {
        let column = "(to_jsonb(NEW.\(TriggerInstaller.quoteIdentifier(self.column))) #>> '{}') COLLATE \"C\""
        let list = self.values
            .map { "'" + $0.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'" }
            .joined(separator: ", ")
        return self.excluded ? "(\(column) IS NULL OR \(column) NOT IN (\(list)))" : "(\(column) IN (\(list)))"
    }
}
