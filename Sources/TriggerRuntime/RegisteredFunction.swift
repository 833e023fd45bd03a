import Foundation

/// A function as the runtime sees it: a name, a trigger, options, and a handler over raw JSON rows.
///
/// The typed `TriggerFunction` and the closure form are both adapted to this.
public struct RegisteredFunction: Sendable {
    /// The persisted name.
    public let name: FunctionName
    /// What fires the function.
    public let trigger: Trigger
    /// Attempts, timeout, backoff.
    public let options: FunctionOptions
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
        self.name = name
        self.trigger = trigger
        self.options = options
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
