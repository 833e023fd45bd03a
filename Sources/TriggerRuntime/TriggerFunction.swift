/// A function that reacts to row changes, with a typed row.
///
/// ```swift
/// struct UpdateOrderStatus: TriggerFunction {
///     static let name: FunctionName = "updateOrderStatus"
///     var trigger: Trigger { .update("orders", columns: ["status"]) }
///     func handle(_ change: Change<OrderRow>, context: FunctionContext) async throws { … }
/// }
/// ```
public protocol TriggerFunction: Sendable {
    /// The row type, decoded from the row's JSON (`to_jsonb(row)`: column names as keys).
    associatedtype Row: Decodable & Sendable
    /// The persisted name. Never derive it from the type's name.
    static var name: FunctionName { get }
    /// What fires the function.
    var trigger: Trigger { get }
    /// Attempts, timeout and backoff. Defaults to `FunctionOptions()`.
    var options: FunctionOptions { get }
    /// Handles one change. Throwing (or exceeding the timeout) schedules a retry.
    func handle(_ change: Change<Row>, context: FunctionContext) async throws
}

extension TriggerFunction {
    public var options: FunctionOptions { FunctionOptions() }
}
