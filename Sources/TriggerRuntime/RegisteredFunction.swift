import Foundation

/// A function as the runtime sees it: its binding (name, trigger, options) and a handler over raw JSON rows.
///
/// The typed `TriggerFunction` and the closure form are both adapted to this.
public struct RegisteredFunction: Sendable {
    /// The name, trigger and options, as the installer records them.
    public let binding: FunctionBinding
    /// The persisted name.
    public var name: FunctionName { self.binding.name }
    /// The row trigger; `nil` for timer and scheduled functions.
    public var trigger: Trigger? { self.binding.trigger }
    /// What fires the function.
    public var kind: FunctionBinding.Kind { self.binding.kind }
    /// Attempts, timeout, backoff.
    public var options: FunctionOptions { self.binding.options }
    private let handler: @Sendable (_ before: Data?, _ after: Data?, _ context: FunctionContext) async throws -> Void

    /// Creates a function over raw JSON rows.
    /// - Parameters:
    ///   - name: The persisted name.
    ///   - trigger: What fires it.
    ///   - options: Attempts, timeout, backoff.
    ///   - handler: Receives the row before and after as JSON (`nil` where absent) and the context.
    public init(
        name: FunctionName,
        trigger: Trigger,
        options: FunctionOptions,
        handler: @escaping @Sendable (_ before: Data?, _ after: Data?, _ context: FunctionContext) async throws -> Void
    ) {
        self.init(binding: FunctionBinding(name: name, trigger: trigger, options: options), handler: handler)
    }

    /// Creates a function over raw JSON rows from its binding.
    /// - Parameters:
    ///   - binding: The name, trigger and options.
    ///   - handler: Receives the row before and after as JSON (`nil` where absent) and the context.
    public init(
        binding: FunctionBinding,
        handler: @escaping @Sendable (_ before: Data?, _ after: Data?, _ context: FunctionContext) async throws -> Void
    ) {
        self.binding = binding
        self.handler = handler
    }

    /// Invokes the handler with raw JSON rows.
    /// - Parameters:
    ///   - before: The row before the change as JSON, or `nil`.
    ///   - after: The row after the change as JSON, or `nil`.
    ///   - context: The invocation's context.
    public func invoke(before: Data?, after: Data?, context: FunctionContext) async throws {
        try await self.handler(before, after, context)
    }
}
