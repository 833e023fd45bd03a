import AsyncHTTPClient
import Foundation
import Functions
import Hummingbird
import HyperTrackAPI
import HyperTrackEmulator
import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime

/// The whole backend on a laptop, as one `Service`: the HTTP API, the HyperTrack emulator (its webhooks signed and
/// posted to the API, the API's HyperTrack client pointed at it) and the trigger worker, on a database client that
/// runs beside it in the same `ServiceGroup`.
///
/// ```swift
/// let stack = LocalStack(client: client, configuration: .init(), logger: logger) { running in
///     print(running.endpoints.banner)
/// }
/// try await ServiceGroup(services: [client, stack], gracefulShutdownSignals: [.sigint], logger: logger).run()
/// ```
///
/// Start order: the API (so its port is known), then the emulator (webhooks to that port), then migrations and the
/// worker. Graceful shutdown reaches all three at once; the emulator saves its state to
/// ``Configuration/emulatorStateDirectory`` on the way out.
public struct LocalStack: Service {
    let client: PostgresClient
    let configuration: Configuration
    let databaseURL: String?
    let logger: Logger
    let onReady: @Sendable (Running) async throws -> Void

    /// Creates the stack.
    /// - Parameters:
    ///   - client: The database client; run it in the same service group, before the stack.
    ///   - configuration: Ports, clock, credentials, state directory.
    ///   - databaseURL: The database's URL, reported in ``Endpoints`` (for `functions call`).
    ///   - logger: The logger.
    ///   - onReady: Called once everything is up, with the endpoints and the emulator.
    public init(
        client: PostgresClient,
        configuration: Configuration,
        databaseURL: String? = nil,
        logger: Logger,
        onReady: @escaping @Sendable (Running) async throws -> Void = { _ in }
    ) {
        self.client = client
        self.configuration = configuration
        self.databaseURL = databaseURL
        self.logger = logger
        self.onReady = onReady
    }

    public func run() async throws {
        let settings = self.configuration
        let logger = self.logger
        var backendConfiguration = settings.backend
        backendConfiguration.webhook = .init(secret: settings.webhookSecret, acceptUnsigned: false)
        let backend = Backend(configuration: backendConfiguration)
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: backend.makeRouter(
                client: self.client,
                logger: logger,
                requiredMigrations: TriggerRuntime.migrations + backend.migrations
            ),
            configuration: .init(address: .hostname(settings.apiHost, port: settings.apiPort)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { portContinuation.finish() }
                try await application.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0 else {
                try await group.next()
                throw LocalStackError.apiDidNotStart("the HTTP API did not start on \(settings.apiHost):\(settings.apiPort)")
            }
            let apiURL = "http://\(settings.apiHost):\(port)"
            let emulator = try HyperTrackEmulator(configuration: self.emulatorConfiguration(apiURL: apiURL), logger: logger)
            group.addTask { try await emulator.run() }
            let emulatorURL = try await emulator.baseURL()

            var clientConfiguration = HyperTrackClient.Configuration(
                baseURL: emulatorURL, accountID: settings.accountID, secretKey: settings.secretKey
            )
            clientConfiguration.nearbyPollInterval = settings.nearbyPollInterval
            let tracking = try HyperTrackClient(configuration: clientConfiguration, httpClient: .shared, logger: logger)
            let registry = backend.registry(tracking: tracking)
            if settings.prepare {
                try await TriggerRuntime.prepare(
                    client: self.client, registry: registry, migrations: backend.migrations,
                    channel: settings.runtime.channel, logger: logger
                )
            }
            let runtime = TriggerRuntime(
                client: self.client, registry: registry, configuration: settings.runtime, logger: logger
            )
            group.addTask { try await runtime.run() }
            let endpoints = Endpoints(
                apiURL: apiURL,
                webhookURL: "\(apiURL)/v1/hypertrack/webhooks",
                emulatorURL: emulatorURL,
                accountID: settings.accountID,
                secretKey: settings.secretKey,
                webhookSecret: settings.webhookSecret,
                databaseURL: self.databaseURL
            )
            try await self.onReady(Running(endpoints: endpoints, emulator: emulator))
            try await group.waitForAll()
        }
    }

    func emulatorConfiguration(apiURL: String) -> HyperTrackEmulator.Configuration {
        var emulator = HyperTrackEmulator.Configuration()
        emulator.host = "127.0.0.1"
        emulator.port = self.configuration.emulatorPort
        emulator.accountID = self.configuration.accountID
        emulator.secretKey = self.configuration.secretKey
        emulator.webhookURL = "\(apiURL)/v1/hypertrack/webhooks"
        emulator.webhookSecret = self.configuration.webhookSecret
        emulator.clock = self.configuration.clock
        emulator.speed = self.configuration.driverSpeed
        if let directory = self.configuration.emulatorStateDirectory {
            emulator.options.exportDirectory = directory
            let state = URL(fileURLWithPath: directory).appendingPathComponent("state.json").path
            if FileManager.default.fileExists(atPath: state) {
                emulator.options.importDirectory = directory
            }
        }
        return emulator
    }
}
