import BackendServer
import Logging
import PostgresNIO
import Prometheus

extension LocalStack {
    /// Runs a stack on `database` for the duration of `body`, then shuts it down gracefully (tests, the demo, the
    /// functions shell's throwaway stack).
    /// - Parameters:
    ///   - database: The database's client configuration.
    ///   - configuration: The stack's configuration (use port 0 for both servers in tests).
    ///   - metrics: The registry the API's `/metrics` renders.
    ///   - logger: The logger.
    ///   - body: Runs with the started stack.
    public static func withRunning<T: Sendable>(
        database: PostgresClient.Configuration,
        configuration: Configuration,
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger,
        _ body: @escaping @Sendable (Running) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: database, backgroundLogger: logger)
        return try await ServiceScope.withRunning(
            notReady: LocalStackError.apiDidNotStart("the local stack stopped before it was ready"), logger: logger
        ) { ready in
            [client, LocalStack(client: client, configuration: configuration, metrics: metrics, logger: logger) { ready($0) }]
        } _: { running in
            try await body(running)
        }
    }
}
