/// A row change as a function sees it: the row before and after, decoded from the row's JSON.
public struct Change<Row: Sendable>: Sendable {
    /// What happened to the row.
    public var operation: ChangeOperation
    /// The row before the change; `nil` for a create.
    public var before: Row?
    /// The row after the change; `nil` for a delete.
    public var after: Row?

    /// Creates a change.
    /// - Parameters:
    ///   - operation: What happened to the row.
    ///   - before: The row before the change; `nil` for a create.
    ///   - after: The row after the change; `nil` for a delete.
    public init(operation: ChangeOperation, before: Row?, after: Row?) {
        self.operation = operation
        self.before = before
        self.after = after
    }
}

extension Change: Equatable where Row: Equatable {}
