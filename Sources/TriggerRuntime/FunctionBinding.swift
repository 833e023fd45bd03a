/// What binds a function to the database: its persisted name, its trigger and its delivery options.
///
/// A binding is a fact of a function's type, so it is built without constructing the function: installing the
/// capture triggers (`migrate`), listing the functions and checking a registration need no HyperTrack, no store and
/// no other dependency of the handlers. `FunctionRegistry` pairs each binding with a handler for running.
///
/// ```swift
/// let bindings = [FunctionBinding(UpdateOrderStatus.self), FunctionBinding(DeleteOrder.self)]
/// try await TriggerInstaller(client: client, logger: logger).install(bindings)
/// ```
public struct FunctionBinding: Sendable, Hashable {
    /// The persisted name.
    public var name: FunctionName
    /// What fires the function.
    public var trigger: Trigger
    /// Attempts, timeout, backoff.
    public var options: FunctionOptions

    /// Creates a binding.
    /// - Parameters:
    ///   - name: The persisted name.
    ///   - trigger: What fires it.
    ///   - options: Attempts, timeout, backoff.
    public init(name: FunctionName, trigger: Trigger, options: FunctionOptions = FunctionOptions()) {
        self.name = name
        self.trigger = trigger
        self.options = options
    }

    /// The binding of a typed function, read from its type.
    /// - Parameter function: The function's type.
    public init<F: TriggerFunction>(_ function: F.Type) {
        self.init(name: F.name, trigger: F.trigger, options: F.options)
    }
}
