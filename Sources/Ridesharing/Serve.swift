import ArgumentParser
import BackendServer
import Foundation
import Functions
import Logging
import PostgresNIO
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
            Backend settings come from the environment or the settings file: \(BackendSettings.variables).
            Worker settings come from the flags below or \(Setting.environmentHelp(.worker)).
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

    var role: ServerRole { self.workerOnly ? .worker : self.apiOnly ? .api : .all }

    func run() async throws {
        let values = try await self.global.settings(worker: self.worker)
        let configuration = try Configuration(values, embeddedPostgres: self.global.embeddedPostgres)
        let role = self.role
        let settings = try BackendSettings(values, requireHyperTrack: role.runsWorker)
        Bootstrap.logging(configuration)
        let metrics = Bootstrap.metrics()
        let logger = configuration.logger()
        logger.info("serve starting", metadata: ["serve.role": "\(role)", "worker.id": "\(configuration.runtime.workerID)"])
        if role.runsAPI && settings.backend.auth.delivery == nil {
            let warning = "no sign-in code delivery is configured: POST /v1/auth/code answers 503 until "
                + "\(Setting.authCodeWebhookURL) and \(Setting.authCodeWebhookSecret) are set "
                + "(`ridesharing local` keeps codes in its outbox)"
            logger.warning("\(warning)")
        }
        let prepare = self.migrate || self.global.embeddedPostgres
        try await configuration.withDatabase(logger: logger) { database in
            // A long-running process: a pool that arms no timer per request (see useSteadyPool for the measurement).
            var database = database
            database.useSteadyPool(connections: configuration.maximumConnections)
            let client = PostgresClient(configuration: database, backgroundLogger: logger)
            let composition = BackendComposition(
                configuration: settings.composition(role: role, runtime: configuration.runtime),
                client: client, logger: logger
            )
            // With `prepare`, the migrations and capture triggers run before anything serves or claims: a write
            // accepted between the migrations and the triggers would never reach the functions.
            let application = try composition.application(
                tracking: try settings.tracking(logger: logger), metrics: metrics, prepare: prepare
            )
            let group = ServiceGroup(
                services: [client, application],
                gracefulShutdownSignals: [.sigterm, .sigint],
                cancellationSignals: [],
                logger: logger
            )
            try await group.run()
        }
        logger.info("serve stopped", metadata: ["serve.role": "\(role)"])
    }
}
