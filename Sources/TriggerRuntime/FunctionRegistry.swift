import Foundation

/// The set of functions a worker runs: each binding with its handler. Building it needs no database.
///
/// Installing triggers needs only the bindings (``FunctionBinding``), which come from the functions' types; the
/// registry is for running, so it takes constructed functions.
///
/// ```swift
/// var registry = FunctionRegistry()
/// registry.register(UpdateOrderStatus(tracking: tracking, stores: .postgres))
/// registry.register("audit", on: .write("orders"), as: OrderRow.self) { change, context in … }
/// ```
public struct FunctionRegistry: Sendable {
    /// The registered functions, in registration order.
    public private(set) var functions: [RegisteredFunction] = []

    /// The registered functions' bindings, in registration order.
    public var bindings: [FunctionBinding] { self.functions.map(\.binding) }

    /// Creates an empty registry.
    public init() {}

    /// Registers a typed function.
    /// - Parameter function: The function; its `Row` is decoded from each change's JSON.
    public mutating func register<F: TriggerFunction>(_ function: F) {
        self.register(F.name, on: F.trigger, options: F.options, as: F.Row.self) { change, context in
            try await function.handle(change, context: context)
        }
    }

    /// Registers a closure as a function.
    /// - Parameters:
    ///   - name: The persisted name.
    ///   - trigger: What fires it.
    ///   - options: Attempts, timeout, backoff.
    ///   - rowType: The row type decoded from each change's JSON.
    ///   - handler: The function's body.
    public mutating func register<Row: Decodable & Sendable>(
        _ name: FunctionName,
        on trigger: Trigger,
        options: FunctionOptions = FunctionOptions(),
        as rowType: Row.Type = Row.self,
        _ handler: @escaping @Sendable (Change<Row>, FunctionContext) async throws -> Void
    ) {
        let function = RegisteredFunction(name: name, trigger: trigger, options: options) { before, after, context in
            let decoder = JSONDecoder.rowDecoder()
            let change = Change<Row>(
                operation: context.operation,
                before: try before.map { try decoder.decode(Row.self, from: $0) },
                after: try after.map { try decoder.decode(Row.self, from: $0) }
            )
            try await handler(change, context)
        }
        self.add(function)
    }

    /// Adds a function of any kind; its name must be new.
    mutating func add(_ function: RegisteredFunction) {
        precondition(self.function(named: function.name) == nil, "function \(function.name) is registered twice")
        self.functions.append(function)
    }

    /// The function registered under `name`, if any.
    public func function(named name: FunctionName) -> RegisteredFunction? {
        self.functions.first { $0.name == name }
    }
}
