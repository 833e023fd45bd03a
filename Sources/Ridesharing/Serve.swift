import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle
import TriggerRuntime
import UnixSignals

/// `ridesharing serve`: the worker and the HTTP API in one `ServiceGroup`, or either alone.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the trigger worker and the HTTP API until SIGTERM or SIGINT (graceful: running handlers finish first).",
        discussion: """
            Roles: both (default), --worker-only (the worker; its HTTP port serves only /healthz, /readyz, /metrics), \
            --api-only (the HTTP API and /metrics, no worker). Every role serves /metrics (Prometheus text format) \
            on HTTP_HOST:HTTP_PORT.
            Backend settings come from the environment: \(BackendSettings.variables).
            Worker settings come from the flags below or WORKER_CONCURRENCY, WORKER_BATCH_SIZE, \
            WORKER_POLL_INTERVAL_MS, WORKER_LEASE_SECONDS, WORKER_SHUTDOWN_GRACE_SECONDS, WORKER_RETENTION_HOURS, \
            WORKER_LISTEN, WORKER_CHANNEL, WORKER_ID.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var worker: WorkerOptions

    @Flag(help: "Apply migrations and install triggers before serving (implied by --embedded-postgres).")
    var migrate = false

    @Flag(help: "Run only the trigger worker (HTTP: /healthz, /readyz, /metrics).")
    var workerOnly = false

    @Flag(help: "Run only the HTTP API (no worker).")
    var apiOnly = false

    func validate() throws {
        if self.workerOnly && self.apiOnly {
            throw ValidationError("--worker-only and --api-only exclude each other (omit both to run both)")
        }
    }

    var role: ServeRole { self.workerOnly ? .worker : self.apiOnly ? .api : .all }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration = try Configuration(global: self.global, worker: self.worker, environment: environment)
        let role = self.role
        let settings = try BackendSettings(environment: environment, requireHyperTrack: role.runsWorker)
        Bootstrap.logging(configuration)
        let metrics = Bootstrap.metrics()
        let logger = configuration.logger()
        logger.info("serve starting", metadata: ["serve.role": "\(role)", "worker.id": "\(configuration.runtime.workerID)"])
        let prepare = self.migrate || self.global.embeddedPostgres
        try await configuration.withDatabase(logger: logger) { database in
            let group = try Self.buildServiceGroup(
                configuration: configuration, settings: settings, database: database, prepare: prepare,
                role: role, metrics: metrics, logger: logger
            )
            try await group.run()
        }
        logger.info("serve stopped", metadata: ["serve.role": "\(role)"])
    }

    /// The service group of `serve`: the client, the HTTP server of the role, then the worker (preceded by
    /// migrations and trigger installation when `prepare`). Shutdown runs in reverse: the worker drains first.
    /// - Parameters:
    ///   - role: What to run (default both, as before roles existed).
    ///   - metrics: The registry `/metrics` renders; `nil` renders an empty one (tests that do not bootstrap).
    static func buildServiceGroup(
        configuration: Configuration,
        settings: BackendSettings,
        database: PostgresClient.Configuration,
        prepare: Bool,
        role: ServeRole = .all,
        metrics: PrometheusCollectorRegistry? = nil,
        logger: Logger
    ) throws -> ServiceGroup {
        let client = PostgresClient(configuration: database, backgroundLogger: logger)
        let backend = try Composition.make(client: client, settings: settings, serveAPI: false, logger: logger)
        let http = ServeHTTP.application(
            role: role, client: client, settings: settings,
            requiredMigrations: TriggerRuntime.migrations + backend.migrations,
            metrics: metrics ?? PrometheusCollectorRegistry(), logger: logger
        )
        var services: [any Service] = [client] + backend.services + [http]
        let channel = configuration.runtime.channel
        let install: @Sendable () async throws -> Void = {
            guard prepare else { return }
            try await TriggerRuntime.prepare(
                client: client, registry: backend.registry, migrations: backend.migrations, channel: channel,
                logger: logger
            )
        }
        if role.runsWorker {
            let runtime = TriggerRuntime(
                client: client, registry: backend.registry, configuration: configuration.runtime, logger: logger
            )
            services.append(PreludeService(runtime, prelude: install))
        } else if prepare {
            services.append(PreludeService(IdleService(), prelude: install))
        }
        return ServiceGroup(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            cancellationSignals: [],
            logger: logger
        )
    }
}

/// Keeps a slot in the group until graceful shutdown (runs `--api-only --migrate`'s prelude).
struct IdleService: Service, CustomStringConvertible {
    func run() async throws {
        try? await gracefulShutdown()
    }

    var description: String { "IdleService" }
}
