import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime

/// What the application adds to the worker: its functions, its migrations, and its long-lived services (the HTTP
/// API, …). The one place to extend when the `Functions` module lands.
struct Backend: Sendable {
    /// The functions the worker runs.
    var registry: FunctionRegistry
    /// The application's migrations (group `app`), applied after the runtime's.
    var migrations: [Migration]
    /// Services run beside the worker, after the client and before the worker in start order.
    var services: [any Service]

    /// Builds the backend. Today: no functions, no migrations, no services.
    /// - Parameters:
    ///   - client: The database client (running inside the service group).
    ///   - logger: The application's logger.
    static func make(client: PostgresClient, logger: Logger) -> Backend {
        Backend(registry: FunctionRegistry(), migrations: [], services: [])
    }
}
