import TriggerRuntime

/// How a function gets its store for one invocation.
///
/// `.postgres` opens a `PostgresRideStore` on the delivery's transaction (`context.transaction`); the test kit adds
/// an in-memory form.
public struct RideStoreFactory: Sendable {
    private let make: @Sendable (FunctionContext) throws -> any RideStore

    /// Creates a factory from a closure.
    /// - Parameter make: Returns the store for an invocation.
    public init(_ make: @escaping @Sendable (FunctionContext) throws -> any RideStore) {
        self.make = make
    }

    /// The store for an invocation.
    public func store(for context: FunctionContext) throws -> any RideStore {
        try self.make(context)
    }

    /// Stores on the delivery's open transaction; throws when the invocation has none.
    public static var postgres: RideStoreFactory {
        RideStoreFactory { context in
            guard let connection = context.transaction else { throw FunctionsError.noTransaction(context.functionName) }
            return PostgresRideStore(connection: connection, logger: context.logger)
        }
    }
}
