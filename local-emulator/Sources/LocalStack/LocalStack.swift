import AsyncHTTPClient
import BackendServer
import Foundation
import Functions
import HyperTrackAPI
import HyperTrackEmulator
import Logging
import PostgresNIO
import Prometheus
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
/// Start order: migrations and capture triggers (before anything can write), the API (so its port is known), then
/// the emulator (webhooks to that port), then the worker. Graceful shutdown reaches all three at once; the emulator saves its state to
/// ``Configuration/emulatorStateDirectory`` on the way out.
public struct LocalStack: Service {
    let client: PostgresClient
    let configuration: Configuration
    let databaseURL: String?
    let metrics: PrometheusCollectorRegistry
    let logger: Logger
    let onReady: @Sendable (Running) async throws -> Void
    /// Where sign-in codes go on a laptop: logged, and readable at `GET /local/auth/codes/{phone}`.
    let outbox: CodeOutbox

    /// Creates the stack.
    /// - Parameters:
    ///   - client: The database client; run it in the same service group, before the stack.
    ///   - configuration: Ports, clock, credentials, state directory.
    ///   - databaseURL: The database's URL, reported in ``Endpoints`` (for `functions call`).
    ///   - metrics: The registry the API's `/metrics` renders (the executable bootstraps swift-metrics with it).
    ///   - logger: The logger.
    ///   - onReady: Called once everything is up, with the endpoints and the emulator.
    public init(
        client: PostgresClient,
        configuration: Configuration,
        databaseURL: String? = nil,
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger,
        onReady: @escaping @Sendable (Running) async throws -> Void = { _ in }
    ) {
        self.client = client
        self.configuration = configuration
        self.databaseURL = databaseURL
        self.metrics = metrics
        self.logger = logger
        self.onReady = onReady
        self.outbox = CodeOutbox(logger: logger)
    }

    /// The backend's composition with the stack's settings (both roles; migrations run before the worker starts).
    var composition: BackendComposition {
        var composition = BackendComposition.Configuration()
        composition.role = .all
        composition.backend = self.configuration.backend
        // Both checks, as production should run them: the secret in the URL and the emulator's HMAC signature.
        composition.backend.webhook.pathSecrets = [self.configuration.webhookSecret]
        composition.backend.webhook.secret = self.configuration.webhookSecret
        composition.backend.webhook.acceptUnsigned = false
        // No SMS on a laptop: codes go to the outbox (logged, and at the local-only GET /local/auth/codes/{phone}).
        composition.backend.auth.delivery = self.outbox
        composition.runtime = self.configuration.runtime
        composition.httpHost = self.configuration.apiHost
        composition.httpPort = self.configuration.apiPort
        composition.metricsPort = self.configuration.metricsPort
        return BackendComposition(configuration: composition, client: self.client, logger: self.logger)
    }

    public func run() async throws {
        let settings = self.configuration
        let logger = self.logger
        let composition = self.composition
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let (metricsPorts, metricsPortContinuation) = AsyncStream<Int>.makeStream()
        // With `prepare`, the migrations and capture triggers run before the API serves: a write accepted between
        // them would never reach the functions. The worker starts after the API listens, so after them too.
        let application = composition.application(
            metrics: self.metrics,
            prepare: settings.prepare,
            onListening: { port in
                portContinuation.yield(port)
                portContinuation.finish()
            },
            onMetricsListening: { port in
                metricsPortContinuation.yield(port)
                metricsPortContinuation.finish()
            }
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer {
                    portContinuation.finish()
                    metricsPortContinuation.finish()
                }
                try await application.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0 else {
                try await group.next()
                throw LocalStackError.apiDidNotStart("the HTTP API did not start on \(settings.apiHost):\(settings.apiPort)")
            }
            let apiURL = "http://\(settings.apiHost):\(port)"
            // `/metrics`' own port, for stack.json (`simulate` reads the API's timings there).
            var metricsURL: String?
            if settings.metricsPort != nil {
                var metricsIterator = metricsPorts.makeAsyncIterator()
                guard let metricsPort = await metricsIterator.next(), metricsPort > 0 else {
                    try await group.next()
                    throw LocalStackError.apiDidNotStart("/metrics did not start on \(settings.apiHost)")
                }
                metricsURL = "http://\(settings.apiHost):\(metricsPort)"
            }
            let emulator = try HyperTrackEmulator(configuration: self.emulatorConfiguration(apiURL: apiURL), logger: logger)
            group.addTask { try await emulator.run() }
            let emulatorURL = try await emulator.baseURL()

            var clientConfiguration = HyperTrackClient.Configuration(
                baseURL: emulatorURL, accountID: settings.accountID, secretKey: settings.secretKey
            )
            clientConfiguration.nearbyPollInterval = settings.nearbyPollInterval
            let hyperTrack = try HyperTrackClient(
                configuration: clientConfiguration, httpClient: .shared, logger: logger
            )
            let tracking = HyperTrackTripTracking(client: hyperTrack, logger: logger)
            let worker = composition.worker(registry: composition.registry(tracking: tracking))
            group.addTask { try await worker.run() }
            let endpoints = Endpoints(
                apiURL: apiURL,
                webhookURL: "\(apiURL)/v1/hypertrack/webhooks/\(settings.webhookSecret)",
                emulatorURL: emulatorURL,
                accountID: settings.accountID,
                secretKey: settings.secretKey,
                webhookSecret: settings.webhookSecret,
                databaseURL: self.databaseURL,
                pid: getpid(),
                metricsURL: metricsURL
            )
            let announcer = ShareLinkAnnouncer(client: self.client, apiURL: apiURL, logger: logger) { order, url in
                if let onShareLink = settings.onShareLink {
                    onShareLink(order, url)
                } else {
                    logger.notice("share link of ride \(order): \(url)")
                }
            }
            group.addTask { await cancelWhenGracefulShutdown { await announcer.run() } }
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
        emulator.webhookURL = "\(apiURL)/v1/hypertrack/webhooks/\(self.configuration.webhookSecret)"
        emulator.webhookSecret = self.configuration.webhookSecret
        emulator.clock = self.configuration.clock
        emulator.speed = self.configuration.driverSpeed
        emulator.options.tickInterval = self.configuration.emulatorTickInterval
        emulator.options.autoCreateDevices = self.configuration.emulatorCreatesDevices
        emulator.options.locationReportInterval = self.configuration.locationReportInterval
        emulator.options.movingReportInterval = self.configuration.movingReportInterval
        emulator.options.webhookBatchSize = self.configuration.webhookBatchSize
        emulator.options.webhookLogLimit = self.configuration.webhookLogLimit
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
