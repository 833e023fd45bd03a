import Foundation
import Functions
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import Prometheus
import ServiceLifecycle
import TriggerRuntime

/// What one `serve` process runs.
enum ServeRole: String, Sendable, CustomStringConvertible {
    /// The worker and the HTTP API (the default).
    case all
    /// The trigger worker, with `/healthz`, `/readyz` and `/metrics` only.
    case worker
    /// The HTTP API (`/v1`, `/healthz`, `/readyz`, `/metrics`) without the worker.
    case api

    var runsWorker: Bool { self != .api }
    var runsAPI: Bool { self != .worker }
    var description: String { self.rawValue }
}

/// The HTTP server of `serve`: the API (role `all` or `api`) or the worker's small health and metrics app; both
/// answer `/metrics` and record per-request metrics (`hb_requests`, `http_server_request_duration`,
/// `hb_request_errors`, `http_server_active_requests`).
enum ServeHTTP {
    /// The application for `role`.
    /// - Parameters:
    ///   - role: Which process this is.
    ///   - client: The database client (running in the same group, started before the application).
    ///   - settings: Where to listen, and the API's settings.
    ///   - requiredMigrations: What `/readyz` requires to be applied.
    ///   - metrics: The registry `/metrics` renders.
    ///   - logger: The process's logger.
    static func application(
        role: ServeRole,
        client: PostgresClient,
        settings: BackendSettings,
        requiredMigrations: [Migration],
        metrics: PrometheusCollectorRegistry,
        logger: Logger
    ) -> any Service {
        let configuration = ApplicationConfiguration(address: .hostname(settings.httpHost, port: settings.httpPort))
        let running: @Sendable (any Channel) async -> Void = { channel in
            logger.info(
                "HTTP listening",
                metadata: [
                    "http.role": "\(role)",
                    "http.port": "\(channel.localAddress?.port ?? -1)",
                    "http.address": "\(channel.localAddress.map { "\($0)" } ?? "?")",
                ]
            )
        }
        if role.runsAPI {
            let router = Functions.Backend(configuration: settings.backend)
                .makeRouter(client: client, logger: logger, requiredMigrations: requiredMigrations)
            router.get("metrics") { _, _ in Self.render(metrics) }
            return Application(
                responder: ObservedResponder(inner: router.buildResponder()),
                configuration: configuration, onServerRunning: running, logger: logger
            )
        }
        let router = Router()
        let health = WorkerHealth(client: client, migrations: requiredMigrations, logger: logger)
        router.get("healthz") { _, _ in health.live() }
        router.get("readyz") { _, _ in await health.ready() }
        router.get("metrics") { _, _ in Self.render(metrics) }
        return Application(
            responder: ObservedResponder(inner: router.buildResponder()),
            configuration: configuration, onServerRunning: running, logger: logger
        )
    }

    /// The registry in Prometheus text exposition format 0.0.4.
    static func render(_ registry: PrometheusCollectorRegistry) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
        )
    }
}

/// Records Hummingbird's request metrics around a whole responder (routes included that were registered before any
/// middleware could be added).
struct ObservedResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: RequestContext {
    typealias Context = Inner.Context
    let inner: Inner
    let middleware = MetricsMiddleware<Inner.Context>()

    @Sendable func respond(to request: Request, context: Context) async throws -> Response {
        try await self.middleware.handle(request, context: context) { request, context in
            try await self.inner.respond(to: request, context: context)
        }
    }
}

/// The worker's `/healthz` (the process answers) and `/readyz` (the database answers and every migration the
/// worker's code needs is applied).
struct WorkerHealth: Sendable {
    let client: PostgresClient
    let migrations: [Migration]
    let logger: Logger

    func live() -> Response {
        Self.json(.ok, #"{"status":"ok"}"#)
    }

    func ready() async -> Response {
        let applied: Set<String>
        do {
            applied = Set(try await Migrator(client: self.client, logger: self.logger).history().map { "\($0.group)/\($0.name)" })
        } catch {
            self.logger.warning("readiness: database unreachable", metadata: ["error.type": "\(type(of: error))"])
            return Self.json(.serviceUnavailable, #"{"status":"unavailable","detail":"the database is unreachable"}"#)
        }
        let missing = self.migrations.map { "\($0.group)/\($0.name)" }.filter { !applied.contains($0) }
        guard missing.isEmpty else {
            let detail = "migrations not applied: \(missing.joined(separator: ", "))"
            let body = (try? JSONSerialization.data(withJSONObject: ["status": "unavailable", "detail": detail]))
                .map { String(decoding: $0, as: UTF8.self) } ?? #"{"status":"unavailable"}"#
            return Self.json(.serviceUnavailable, body)
        }
        return Self.json(.ok, #"{"status":"ready"}"#)
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }
}
