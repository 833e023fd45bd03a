import Functions
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

extension BackendComposition {
    /// The HTTP server of the role: `/v1` (roles ``ServerRole/all`` and ``ServerRole/api``), `/healthz`, `/readyz`
    /// and `/metrics` rendered from `metrics`, with per-request metrics (`hb_requests`,
    /// `http_server_request_duration`, `hb_request_errors`, `http_server_active_requests`). It logs
    /// "HTTP listening" with `http.role`, `http.port` and `http.address` once it listens.
    /// - Parameters:
    ///   - metrics: The registry `/metrics` renders (the one the executable bootstrapped swift-metrics with).
    ///   - onListening: Called with the port once the server listens.
    public func application(
        metrics: PrometheusCollectorRegistry,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> any Service {
        let role = self.configuration.role
        let logger = self.logger
        let address = ApplicationConfiguration(
            address: .hostname(self.configuration.httpHost, port: self.configuration.httpPort)
        )
        let running: @Sendable (any Channel) async -> Void = { channel in
            let port = channel.localAddress?.port ?? 0
            logger.info(
                "HTTP listening",
                metadata: [
                    "http.role": "\(role)",
                    "http.port": "\(port)",
                    "http.address": "\(channel.localAddress.map { "\($0)" } ?? "?")",
                ]
            )
            await onListening(port)
        }
        let router =
            role.runsAPI
            ? self.backend.makeRouter(client: self.client, logger: logger, requiredMigrations: self.requiredMigrations)
            : self.backend.makeHealthRouter(
                client: self.client, logger: logger, requiredMigrations: self.requiredMigrations
            )
        router.get("metrics") { _, _ in PrometheusExposition.response(metrics) }
        return Application(
            responder: ObservedResponder(inner: router.buildResponder()),
            configuration: address, onServerRunning: running, logger: logger
        )
    }
}
