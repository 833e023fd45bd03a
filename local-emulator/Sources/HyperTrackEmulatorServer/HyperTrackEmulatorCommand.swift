import ArgumentParser
import Foundation
import HyperTrackEmulator
import Logging
import ServiceLifecycle
import UnixSignals

/// `hypertrack-emulator`: runs the emulator until SIGINT/SIGTERM, exporting its state on the way out if asked.
@main
struct HyperTrackEmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hypertrack-emulator",
        abstract: "A local, wire-compatible HyperTrack v3 API with simulated drivers and signed webhooks.")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 4010
    @Option(help: "Account id (Basic auth user).") var accountID = "emulator-account"
    @Option(help: "Secret key (Basic auth password; default webhook signing key).") var secretKey = "emulator-secret"
    @Option(help: "Publishable key put in embed URLs.") var publishableKey = "emulator-publishable-key"
    @Option(help: "Where webhooks are POSTed.") var webhookURL: String?
    @Option(help: "HMAC-SHA256 key for x-hypertrack-signature (default: the secret key).") var webhookSecret: String?
    @Option(help: "Top cruise speed of drivers in m/s (each street is driven at 90% of its limit, at most this).")
    var speed = 10.0
    @Option(help: "Clock speed as a multiple of real time; 0 = manual clock (POST /_emulator/clock/advance only).")
    var clockRate = 1.0
    @Option(help: "Default destination radius in metres.") var arrivalRadius = 30.0
    @Option(help: "Seed of ids, share URLs and fault draws.") var seed: UInt64 = 1
    @Flag(help: "Create unknown devices on POST /trips, PATCH, start and stop (default: 404 device_not_found).")
    var createDevices = false
    @Option(help: "Emulated seconds between simulation steps (and a driving device's location reports).")
    var tickInterval = 5.0
    @Option(help: "Emulated seconds between location reports of a tracking device that stands still; 0 = none.")
    var locationReportInterval = 30.0
    @Option(help: "Emulated seconds between location reports of a driving device; 0 = every step.")
    var movingReportInterval = 0.0
    @Option(help: "The most events one webhook delivery carries; 0 = a step's events in one delivery.")
    var webhookBatch = 0
    @Option(help: "How many of a step's webhook deliveries are in flight at once (1: one after another).")
    var webhookConcurrency = 1
    @Option(help: "Webhook attempts GET /_emulator/webhooks keeps (the oldest dropped first); 0 = all.")
    var webhookLogLimit = 0
    @Option(name: .customLong("export"), help: "Save the state to DIR/state.json on shutdown.") var exportDirectory: String?
    @Option(name: .customLong("import"), help: "Load the state from DIR/state.json at start-up.") var importDirectory: String?
    @Option(help: "Log level (trace, debug, info, notice, warning, error, critical).") var logLevel = "info"

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        guard clockRate >= 0 else { throw ValidationError("--clock-rate must be >= 0") }
        guard locationReportInterval >= 0 else { throw ValidationError("--location-report-interval must be >= 0") }
        guard movingReportInterval >= 0 else { throw ValidationError("--moving-report-interval must be >= 0") }
        guard (1...256).contains(webhookConcurrency) else { throw ValidationError("--webhook-concurrency must be in 1...256") }
        guard webhookBatch >= 0, webhookLogLimit >= 0 else {
            throw ValidationError("--webhook-batch and --webhook-log-limit must be >= 0")
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "hypertrack-emulator")
        logger.logLevel = level

        var configuration = HyperTrackEmulator.Configuration()
        configuration.host = host
        configuration.port = port
        configuration.accountID = accountID
        configuration.secretKey = secretKey
        configuration.publishableKey = publishableKey
        configuration.webhookURL = webhookURL
        configuration.webhookSecret = webhookSecret
        configuration.speed = speed
        configuration.clock = clockRate == 0 ? .manual() : .scaled(rate: clockRate)
        configuration.arrivalRadius = arrivalRadius
        configuration.seed = seed
        configuration.options.tickInterval = tickInterval
        configuration.options.autoCreateDevices = createDevices
        configuration.options.locationReportInterval = locationReportInterval == 0 ? nil : locationReportInterval
        configuration.options.movingReportInterval = movingReportInterval == 0 ? nil : movingReportInterval
        configuration.options.webhookBatchSize = webhookBatch == 0 ? nil : webhookBatch
        configuration.options.webhookLogLimit = webhookLogLimit == 0 ? nil : webhookLogLimit
        configuration.options.webhookConcurrency = webhookConcurrency
        configuration.options.exportDirectory = exportDirectory
        configuration.options.importDirectory = importDirectory

        let accountID = self.accountID
        let emulator: HyperTrackEmulator
        do {
            emulator = try HyperTrackEmulator(configuration: configuration, logger: logger) { url in
                // Unbuffered: a piped stdout is block-buffered, and whoever waits for this line would never see it.
                FileHandle.standardOutput.write(Data("hypertrack-emulator listening on \(url) (account \(accountID))\n".utf8))
            }
        } catch {
            throw ValidationError(error.message)
        }
        let group = ServiceGroup(
            services: [emulator], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
    }
}
