import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime
import UnixSignals

/// `ridesharing serve`: the worker (and later the HTTP API) in one `ServiceGroup`.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the trigger worker and the HTTP API until SIGTERM or SIGINT (graceful: running handlers finish first).",
        discussion: """
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

    func run() async throws {
        let configuration = try Configuration(
            global: self.global, worker: self.worker, environment: ProcessInfo.processInfo.environment
        )
        Bootstrap.logging(configuration)
        let logger = configuration.logger()
        let prepare = self.migrate || self.global.embeddedPostgres
        try await configuration.withDatabase(logger: logger) { database in
            let settings = try BackendSettings(environment: ProcessInfo.processInfo.environment, requireHyperTrack: true)
            let group = try Self.buildServiceGroup(
                configuration: configuration, settings: settings, database: database, prepare: prepare, logger: logger
            )
            try await group.run()
        }
    }

    /// The service group of `serve`: the client, the backend's services, then the worker (preceded by migrations
    /// and trigger installation when `prepare`).
    static func buildServiceGroup(
        configuration: Configuration,
        settings: BackendSettings,
        database: PostgresClient.Configuration,
        prepare: Bool,
        logger: Logger
    ) throws -> ServiceGroup {
        let client = PostgresClient(configuration: database, backgroundLogger: logger)
        let backend = try Composition.make(client: client, settings: settings, serveAPI: true, logger: logger)
        let runtime = TriggerRuntime(
            client: client, registry: backend.registry, configuration: configuration.runtime, logger: logger
        )
        let channel = configuration.runtime.channel
        let worker = PreludeService(runtime) {
            guard prepare else { return }
            try await TriggerRuntime.prepare(
                client: client, registry: backend.registry, migrations: backend.migrations, channel: channel,
                logger: logger
            )
        }
        return ServiceGroup(
            services: [client] + backend.services + [worker],
            gracefulShutdownSignals: [.sigterm, .sigint],
            cancellationSignals: [],
            logger: logger
        )
    }
}
