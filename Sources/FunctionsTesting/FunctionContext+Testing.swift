import Foundation
import Logging
import TriggerRuntime

extension FunctionContext {
    /// A context for calling a function directly in a unit test (no transaction).
    /// - Parameters:
    ///   - eventID: The delivery id; keep it stable to model a retry of the same delivery.
    ///   - attempt: The attempt number, from 1.
    ///   - functionName: The function's name.
    ///   - operation: The change's operation.
    ///   - table: The change's table.
    ///   - documentKey: The document's key.
    ///   - commitTime: When the change committed.
    ///   - logger: Defaults to a logger that drops everything; pass `InMemoryLogHandler`'s to inspect logs.
    public static func testing(
        eventID: Int64 = 1,
        attempt: Int = 1,
        functionName: FunctionName = "test",
        operation: ChangeOperation = .update,
        table: String = "test",
        documentKey: String = "1",
        commitTime: Date = Date(timeIntervalSince1970: 1_800_000_000),
        logger: Logger = Logger(label: "functions-testing", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> FunctionContext {
        FunctionContext(
            eventID: eventID,
            functionName: functionName,
            operation: operation,
            table: table,
            documentKey: documentKey,
            commitTime: commitTime,
            attempt: attempt,
            logger: logger,
            transaction: nil
        )
    }
}
