/// A function that reacts to row changes, with a typed row.
///
/// The trigger and the options are static: what binds a function to the database is a fact of its type, so the
/// triggers can be installed (``FunctionBinding/init(_:)``) without constructing a function and its dependencies.
///
/// ```swift
/// struct UpdateOrderStatus: TriggerFunction {
///     static let name: FunctionName = "updateOrderStatus"
///     static var trigger: Trigger { .update("orders", columns: ["status"]) }
///     func handle(_ change: Change<OrderRow>, context: FunctionContext) async throws { … }
/// }
/// ```
public protocol TriggerFunction: Sendable {
    /// The row type, decoded from the row's JSON (`to_jsonb(row)`: column names as keys).
    associatedtype Row: Decodable & Sendable
    /// The persisted name. Never derive it from the type's name.
    static var name: FunctionName { get }
    /// What fires the function.
    static var trigger: Trigger { get }
    /// Attempts, timeout and backoff. Defaults to `FunctionOptions()`.
    static var options: FunctionOptions { get }
    /// Handles one change. Throwing (or exceeding the timeout) schedules a retry.
    func handle(_ change: Change<Row>, context: FunctionContext) async throws
}

extension TriggerFunction {
    public static var options: FunctionOptions { FunctionOptions() }
}
