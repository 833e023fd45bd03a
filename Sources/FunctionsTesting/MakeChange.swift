import Foundation
import TriggerRuntime

/// Builds a change from the row before and after; the operation follows from which is `nil`
/// (`before == nil` is a create, `after == nil` a delete).
///
/// ```swift
/// let change = makeChange(before: order, after: accepted)
/// try await UpdateOrderStatus(…).handle(change, context: .testing())
/// ```
/// - Parameters:
///   - before: The row before the change.
///   - after: The row after the change.
public func makeChange<Row: Sendable>(before: Row?, after: Row?) -> Change<Row> {
    precondition(before != nil || after != nil, "a change needs a row before or after")
    let operation: ChangeOperation = before == nil ? .create : (after == nil ? .delete : .update)
    return Change(operation: operation, before: before, after: after)
}

/// A create: `before` is `nil`.
/// - Parameter row: The inserted row.
public func makeCreateChange<Row: Sendable>(_ row: Row) -> Change<Row> {
    Change(operation: .create, before: nil, after: row)
}

/// A delete: `after` is `nil`.
/// - Parameter row: The deleted row.
public func makeDeleteChange<Row: Sendable>(_ row: Row) -> Change<Row> {
    Change(operation: .delete, before: row, after: nil)
}

/// Builds a change from the rows' JSON, decoded exactly as the runtime decodes `to_jsonb(row)`.
/// - Parameters:
///   - before: The row before the change as JSON, or `nil` for a create.
///   - after: The row after the change as JSON, or `nil` for a delete.
///   - rowType: The row type.
public func makeChange<Row: Decodable & Sendable>(
    beforeJSON before: String?,
    afterJSON after: String?,
    as rowType: Row.Type = Row.self
) throws -> Change<Row> {
    let decoder = JSONDecoder.rowDecoder()
    return makeChange(
        before: try before.map { try decoder.decode(Row.self, from: Data($0.utf8)) },
        after: try after.map { try decoder.decode(Row.self, from: Data($0.utf8)) }
    )
}

/// Builds a change from a Firebase-style document `{"before": {…} | null, "after": {…} | null}`.
/// - Parameters:
///   - document: The JSON document.
///   - rowType: The row type.
public func makeChange<Row: Decodable & Sendable>(
    document: Data,
    as rowType: Row.Type = Row.self
) throws -> Change<Row> {
    let parsed = try JSONDecoder.rowDecoder().decode(ChangeDocument<Row>.self, from: document)
    guard parsed.before != nil || parsed.after != nil else {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "neither before nor after is set"))
    }
    return makeChange(before: parsed.before, after: parsed.after)
}

/// `{"before": …, "after": …}` as the functions shell and Firebase's test kit write it.
private struct ChangeDocument<Row: Decodable>: Decodable {
    var before: Row?
    var after: Row?
}
