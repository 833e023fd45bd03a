import HyperTrackAPI
import Prometheus
import ServiceLifecycle

extension BackendComposition {
    /// Runs the role's services (``services(tracking:metrics:onListening:)``) for the duration of `body`, which
    /// receives the HTTP port once the server listens; then shuts them down gracefully (the worker drains first).
    /// The database client must already be running (tests run it in `TestDatabase.withDatabase`).
    ///
    /// ```swift
    /// try await composition.withRunning(tracking: fake) { port in
    ///     let api = StackAPI(baseURL: "http://127.0.0.1:\(port)")
    ///     …
    /// }
    /// ```
    /// - Parameters:
    ///   - tracking: HyperTrack, for the functions.
    ///   - metrics: The registry `/metrics` renders.
    ///   - body: Runs while the services run.
    public func withRunning<T: Sendable>(
        tracking: some TripTracking,
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        _ body: @escaping @Sendable (Int) async throws -> T
    ) async throws -> T {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let services = self.services(tracking: tracking, metrics: metrics) { port in
            portContinuation.yield(port)
            portContinuation.finish()
        }
        let group = ServiceGroup(
            services: services, gracefulShutdownSignals: [], cancellationSignals: [], logger: self.logger
        )
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                defer { portContinuation.finish() }
                try await group.run()
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0 else {
                while try await tasks.next() != nil {}
                throw BackendServerError(.notListening)
            }
            do {
                let result = try await body(port)
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
