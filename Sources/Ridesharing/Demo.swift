import ArgumentParser
import HyperTrackEmulator
import TriggerRuntime
import Foundation
import LocalStack
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle

/// `ridesharing demo`: one whole ride on a throwaway stack, printed as it happens.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a ride on a throwaway local stack: drivers around Berlin, a booking, the nearest driver "
            + "accepting, the ride to completion on the emulator's stepped clock, the summary and the fare."
    )

    @Option(help: "Log level of the stack (default warning, so the ride's lines stand out).")
    var logLevel = "warning"

    @Option(help: "Emulated seconds per clock step.")
    var step = 30.0

    func validate() throws {
        guard self.step > 0, self.step <= 3600 else { throw ValidationError("--step must be in (0, 3600]") }
        guard Logger.Level(rawValue: self.logLevel) != nil else { throw ValidationError("unknown log level \(self.logLevel)") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: self.logLevel) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let metrics = Bootstrap.metrics()
        var logger = Logger(label: "ridesharing.demo")
        logger.logLevel = level
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ridesharing-demo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var demo = LocalDemo.Configuration()
        demo.stepSeconds = self.step
        let result = try await LocalData.withDatabase(
            url: nil, embeddedIn: directory + "/pg", maximumConnections: 20, logger: logger
        ) { database, _ in
            try await Self.play(database: database, demo: demo, metrics: metrics, logger: logger) { Terminal.line($0) }
        }
        print("done: ride \(result.orderID) by \(result.driverDeviceID), \(result.statuses.count) statuses")
    }

    /// Starts a stack on `database` (ports picked freely, manual clock), plays the demo on it and stops it.
    static func play(
        database: PostgresClient.Configuration,
        demo: LocalDemo.Configuration,
        metrics: PrometheusCollectorRegistry,
        logger: Logger,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> LocalDemo.Result {
        var configuration = LocalStack.Configuration()
        configuration.apiPort = 0
        configuration.emulatorPort = 0
        configuration.clock = .manual()
        configuration.runtime.pollInterval = .milliseconds(200)
        configuration.onShareLink = { order, url in say("share page of ride \(order): \(url)") }
        let client = PostgresClient(configuration: database, backgroundLogger: logger)
        return try await ServiceGroup.withRunning(logger: logger, notReady: LocalStackError.stoppedBeforeReady) {
            ready in
            [
                client,
                LocalStack(client: client, configuration: configuration, metrics: metrics, logger: logger) { ready($0) },
            ]
        } _: { running in
            say("stack up: API \(running.endpoints.apiURL), HyperTrack emulator \(running.endpoints.emulatorURL)")
            return try await LocalDemo(running: running, configuration: demo, say: say).run()
        }
    }
}
