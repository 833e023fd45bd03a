import Functions
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
    ///   - tracking: HyperTrack, for the functions; `nil` for a role without a worker.
    ///   - metrics: The registry `/metrics` renders.
    ///   - body: Runs while the services run.
    public func withRunning<T: Sendable>(
        tracking: (any TripTracking)? = nil,
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        _ body: @escaping @Sendable (Int) async throws -> T
    ) async throws -> T {
        try await ServiceScope.withRunning(notReady: BackendServerError(.notListening), logger: self.logger) { ready in
            try self.services(tracking: tracking, metrics: metrics) { port in ready(port) }
        } _: { port in
            try await body(port)
        }
    }
}
