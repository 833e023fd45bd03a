import Logging
import TriggerRuntime

/// `deleteOrder`: when an order is deleted, marks its active trips for completion (`completeTrip` completes them).
///
/// Legs have no foreign key to orders, so they survive the delete for exactly this.
public struct DeleteOrder: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "deleteOrder"
    /// Fires on order deletes.
    public static var trigger: Trigger { .delete("orders") }

    private let stores: RideStoreFactory

    /// Creates the function.
    /// - Parameter stores: Where the function's store comes from (`.postgres` in production).
    public init(stores: RideStoreFactory) {
        self.stores = stores
    }

    public func handle(_ change: Change<OrderRow>, context: FunctionContext) async throws {
        guard let before = change.before else {
            throw FunctionsError.malformedRow("\(Self.name) needs the deleted order")
        }
        let store = try self.stores.store(for: context)
        let marked = try await store.markLegsForCompletion(orderID: before.id, kinds: Set(LegKind.allCases))
        context.logger.info("order deleted; active trips marked for completion", metadata: ["legs": "\(marked)"])
    }
}
