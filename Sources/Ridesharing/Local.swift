import ArgumentParser
import Configuration
import Foundation
import HyperTrackEmulator
import LocalStack
import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime
import UnixSignals

/// `ridesharing local`: the whole backend on a laptop in one process.
struct Local: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the backend locally: embedded PostgreSQL, the HyperTrack emulator, the worker and the HTTP API.",
        discussion: """
            Uses DATABASE_URL (or --database-url) when given, else a PostgreSQL in <data>/pg (created on first run). \
            The emulator's state is saved to <data>/emulator on Ctrl-C/SIGTERM and loaded at the next start; \
            --fresh deletes both first. While running, <data>/stack.json tells `ridesharing functions call` where \
            everything is. Backend settings (tariff, dispatch) come from the environment or CONFIG_FILE: \
            \(BackendSettings.variables).
            """
    )

    @Option(name: Setting.databaseURL.flagName, help: Setting.databaseURL.flagHelp)
    var databaseURL: String?

    @Option(name: Setting.logLevel.flagName, help: Setting.logLevel.flagHelp)
    var logLevel: String?

    @Flag(help: "Delete the local database and the emulator's state first.")
    var fresh = false

    @Option(help: "HTTP API port (0 picks a free one).")
    var port = 8080

    @Option(help: "HyperTrack emulator port (0 picks a free one).")
    var emulatorPort = 4010

    @Option(help: "Emulated seconds per real second; 0 = a manual clock moved by POST /_emulator/clock/advance.")
    var clockRate = 1.0

    @Option(help: "Emulated seconds between a standing phone's location webhooks (a driving one: --moving-report-interval).")
    var locationReportInterval = 30.0

    @Option(help: "Emulated seconds between a driving phone's location webhooks (0: every 5-second step).")
    var movingReportInterval = 0.0

    @Option(help: "The most events one emulator webhook carries (a step's reports are split into deliveries).")
    var webhookBatch = 500

    @Option(help: "The local data folder (git-ignored).")
    var data = ".local"

    func validate() throws {
        guard (0...65535).contains(self.port), (0...65535).contains(self.emulatorPort) else {
            throw ValidationError("ports must be in 0...65535")
        }
        guard self.clockRate >= 0, self.clockRate <= 10_000 else { throw ValidationError("--clock-rate must be in 0...10000") }
        guard self.locationReportInterval >= 1, self.locationReportInterval <= 3600 else {
            throw ValidationError("--location-report-interval must be in 1...3600 seconds")
        }
        guard self.movingReportInterval >= 0, self.movingReportInterval <= 3600 else {
            throw ValidationError("--moving-report-interval must be in 0...3600 seconds (0: every step)")
        }
        guard (1...100_000).contains(self.webhookBatch) else {
            throw ValidationError("--webhook-batch must be in 1...100000")
        }
    }

    func run() async throws {
        let flags: [Setting: ConfigContent?] = [
            .databaseURL: self.databaseURL.map(ConfigContent.string),
            .logLevel: self.logLevel.map(ConfigContent.string),
        ]
        let values = try await SettingsReader.load(
            flags: flags.compactMapValues { $0 }, environment: ProcessInfo.processInfo.environment
        )
        let configuration = try Configuration(values)
        Bootstrap.logging(configuration)
        let metrics = Bootstrap.metrics()
        let logger = configuration.logger()
        let settings = try BackendSettings(values, requireHyperTrack: false)
        let url: String? = if case .url(let url) = configuration.database { url } else { nil }
        if self.fresh {
            for directory in [LocalData.postgresDirectory(self.data), LocalData.emulatorDirectory(self.data)]
            where FileManager.default.fileExists(atPath: directory) {
                try FileManager.default.removeItem(atPath: directory)
                print("removed \(directory)")
            }
        }
        var stackConfiguration = LocalStack.Configuration()
        stackConfiguration.apiHost = settings.httpHost
        stackConfiguration.apiPort = self.port
        stackConfiguration.emulatorPort = self.emulatorPort
        stackConfiguration.clock = self.clockRate == 0 ? .manual() : .scaled(rate: self.clockRate)
        stackConfiguration.locationReportInterval = self.locationReportInterval
        stackConfiguration.movingReportInterval = self.movingReportInterval > 0 ? self.movingReportInterval : nil
        stackConfiguration.webhookBatchSize = self.webhookBatch
        // The emulator's delivery log holds every body it sent: bounded, a long city run would keep gigabytes.
        stackConfiguration.webhookLogLimit = 10_000
        // Every driver app holds an event stream: a city of thousands needs more than the usual 1,024 files.
        OpenFileLimit.raiseToHardLimit()
        stackConfiguration.onShareLink = { order, url in Terminal.line("share page of ride \(order): \(url)") }
        stackConfiguration.backend = settings.backend
        stackConfiguration.runtime = configuration.runtime
        stackConfiguration.emulatorStateDirectory = LocalData.emulatorDirectory(self.data)
        let endpointsFile = LocalData.endpointsFile(self.data)
        // With --database-url nothing else creates the data folder, and stack.json is written into it.
        try FileManager.default.createDirectory(atPath: LocalData.absolute(self.data), withIntermediateDirectories: true)
        try await LocalData.withDatabase(
            url: url, tls: configuration.databaseTLS, embeddedIn: LocalData.postgresDirectory(self.data),
            maximumConnections: configuration.maximumConnections, logger: logger
        ) { database, databaseURL in
            // A long-running process: a pool that arms no timer per request (see useSteadyPool for the measurement).
            var database = database
            database.useSteadyPool(connections: configuration.maximumConnections)
            let client = PostgresClient(configuration: database, backgroundLogger: logger)
            let stack = LocalStack(
                client: client, configuration: stackConfiguration, databaseURL: databaseURL, metrics: metrics,
                logger: logger
            ) { running in
                let data = try JSONEncoder().encode(running.endpoints)
                try data.write(to: URL(fileURLWithPath: endpointsFile), options: .atomic)
                Terminal.line("ridesharing local is up (Ctrl-C stops it; data stays in \(LocalData.absolute(self.data)))")
                Terminal.line(running.endpoints.banner)
            }
            defer { try? FileManager.default.removeItem(atPath: endpointsFile) }
            let group = ServiceGroup(
                services: [client, stack], gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [],
                logger: logger
            )
            try await group.run()
        }
    }
}
