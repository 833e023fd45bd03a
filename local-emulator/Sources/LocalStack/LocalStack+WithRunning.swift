import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle

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
        let (ready, readyContinuation) = AsyncStream<Running>.makeStream()
        let stack = LocalStack(client: client, configuration: configuration, metrics: metrics, logger: logger) { running in
            readyContinuation.yield(running)
            readyContinuation.finish()
        }
        let group = ServiceGroup(
            services: [client, stack], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger
        )
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                defer { readyContinuation.finish() }
                try await group.run()
                return nil
            }
            var iterator = ready.makeAsyncIterator()
            guard let running = await iterator.next() else {
                while try await tasks.next() != nil {}
                throw LocalStackError.apiDidNotStart("the local stack stopped before it was ready")
            }
            do {
                let result = try await body(running)
                await group.triggerGracefulShutdown()
                while try await tasks.next() != nil {}
                return result
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }
}
