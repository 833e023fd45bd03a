import Functions
import Hummingbird
import HyperTrackAPI
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import TriggerRuntime

extension BackendComposition {
    /// The role's process as one Hummingbird application: the HTTP server of the role and, for roles with a worker,
    /// the trigger worker among the application's services. Run it after the database client, in the process's one
    /// `ServiceGroup`; tests hand it to HummingbirdTesting (`app.test(.router)`), which runs its services too.
    ///
    /// ```swift
    /// let tracking = HyperTrackTripTracking(client: hyperTrack, logger: logger)
    /// let app = try composition.application(tracking: tracking, metrics: registry, prepare: true)
    /// let group = ServiceGroup(services: [client, app], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// try await group.run()
    /// ```
    ///
    /// Hummingbird stops the server first and then its services, so on SIGTERM the API stops taking writes before
    /// the worker drains.
    /// - Parameters:
    ///   - tracking: HyperTrack, for the functions; only a role with a worker needs it.
    ///   - metrics: The registry `/metrics` renders (the one the executable bootstrapped swift-metrics with).
    ///   - prepare: Apply migrations and install the capture triggers (``prepare()``) before the server starts.
    ///   - onListening: Called with the port once the server listens.
    ///   - onMetricsListening: Called with `/metrics`' own port once it listens (``Configuration/metricsPort``).
    /// - Throws: ``BackendServerError`` when the role runs the worker and `tracking` is `nil`.
    public func application(
        tracking: (any TripTracking)?,
        metrics: PrometheusCollectorRegistry,
        prepare: Bool = false,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onMetricsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        var services: [any Service] = []
        if self.configuration.role.runsWorker {
            guard let tracking else {
                throw BackendServerError.invalidConfiguration(
                    "the worker needs HyperTrack: set HYPERTRACK_ACCOUNT_ID and HYPERTRACK_SECRET_KEY (and "
                        + "HYPERTRACK_BASE_URL for the emulator), or run `ridesharing local`"
                )
            }
            services.append(self.worker(registry: self.registry(tracking: tracking)))
        }
        return self.application(
            metrics: metrics,
            services: services,
            prepare: prepare,
            onListening: onListening,
            onMetricsListening: onMetricsListening
        )
    }

    /// The HTTP server of the role: `/v1` (roles ``ServerRole/all`` and ``ServerRole/api``), `/healthz`, `/readyz`
    /// and `/metrics` rendered from `metrics`, with per-request metrics (`hb_requests`,
    /// `http_server_request_duration`, `hb_request_errors`, `http_server_active_requests`). It logs
    /// "HTTP listening" with `http.role`, `http.port` and `http.address` once it listens.
    ///
    /// With `prepare`, ``prepare()`` runs in `beforeServerStarts`, and `services` start only after it: Hummingbird
    /// starts an application's services beside that work, and a worker claiming before its tables and triggers
    /// exist would fail its claims and sleep until its next poll.
    /// - Parameters:
    ///   - metrics: The registry `/metrics` renders.
    ///   - services: Run beside the server (the worker). A role that serves the API adds its ``OrderEventHub``.
    ///   - prepare: Apply migrations and install the capture triggers before the server starts.
    ///   - onListening: Called with the port once the server listens.
    ///   - onMetricsListening: Called with `/metrics`' own port once it listens (``Configuration/metricsPort``; never
    ///     when it is served on the API's port).
    public func application(
        metrics: PrometheusCollectorRegistry,
        services: [any Service] = [],
        prepare: Bool = false,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onMetricsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
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
        var services = services
        let router: Router<APIRequestContext>
        if role.runsAPI {
            // The process's one LISTEN for its event streams, run beside the server (after the migrations).
            let hub = OrderEventHub(client: self.client, logger: logger)
            services.append(hub)
            router = self.backend.makeRouter(
                client: self.client,
                logger: logger,
                requiredMigrations: self.requiredMigrations,
                events: hub
            )
        } else {
            router = self.backend.makeHealthRouter(
                client: self.client,
                logger: logger,
                requiredMigrations: self.requiredMigrations
            )
        }
        let admin = DeliveryAdmin(client: self.client, logger: logger)
        var metricsServer: (any Service)?
        if let port = self.configuration.metricsPort {
            metricsServer = self.metricsApplication(
                metrics: metrics,
                admin: admin,
                port: port,
                onListening: onMetricsListening
            )
        } else {
            router.group().add(middleware: self.backend.operatorAuthentication(client: self.client, logger: logger))
                .get("metrics") { _, _ in await PrometheusExposition.response(metrics, admin: admin) }
        }
        Backend.answerWrongMethods(on: router)
        guard prepare else {
            services += metricsServer.map { [$0] } ?? []
            return Application(
                responder: ObservedResponder(inner: router.buildResponder()),
                server: .http1SmallReadBuffer,
                configuration: address,
                services: services,
                onServerRunning: running,
                logger: logger
            )
        }
        var prepared: [AsyncStream<Never>.Continuation] = []
        let held = services.map { service -> any Service in
            let (stream, continuation) = AsyncStream<Never>.makeStream()
            prepared.append(continuation)
            return AfterPreparation(prepared: stream, service: service)
        }
        var application = Application(
            responder: ObservedResponder(inner: router.buildResponder()),
            server: .http1SmallReadBuffer,
            configuration: address,
            services: (metricsServer.map { [$0] } ?? []) + held,
            onServerRunning: running,
            logger: logger
        )
        application.beforeServerStarts { [prepared] in
            try await self.prepare()
            for continuation in prepared { continuation.finish() }
        }
        return application
    }
}

extension BackendComposition {
    /// `/metrics` alone on its own port (``Configuration/metricsPort``), logging "metrics listening" with
    /// `metrics.port` once it listens, and telling `onListening`.
    func metricsApplication(
        metrics: PrometheusCollectorRegistry,
        admin: DeliveryAdmin,
        port: Int,
        onListening: @escaping @Sendable (Int) async -> Void
    ) -> any Service {
        let logger = self.logger
        let router = Router()
        router.get("metrics") { _, _ in await PrometheusExposition.response(metrics, admin: admin) }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(self.configuration.httpHost, port: port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info(
                    "metrics listening",
                    metadata: [
                        "metrics.port": "\(port)",
                        "metrics.address": "\(channel.localAddress.map { "\($0)" } ?? "?")",
                    ]
                )
                await onListening(port)
            },
            logger: logger
        )
    }
}
