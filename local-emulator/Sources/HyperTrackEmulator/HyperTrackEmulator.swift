import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A local, wire-compatible HyperTrack v3 API with simulated drivers, signed webhooks and injectable faults.
///
/// It is a `Service`: run it in a `ServiceGroup` (in-process from a test on a free port, or in the local stack's
/// group with a fixed ``Configuration/port``):
/// ```swift
/// var configuration = HyperTrackEmulator.Configuration()
/// configuration.webhookURL = "http://127.0.0.1:\(receiverPort)/webhooks"
/// let emulator = try HyperTrackEmulator(configuration: configuration, logger: logger)
/// try await ServiceGroup.withRunning([emulator], logger: logger) {   // the package's test scope
///     let baseURL = try await emulator.baseURL()      // e.g. http://127.0.0.1:53121
///     await emulator.registerDevice(id: "D1", name: "Ann", longitude: -122.42, latitude: 37.77)
///     // … create a trip through the API at baseURL …
///     await emulator.advanceClock(by: 600)            // plays 10 minutes; webhooks were attempted on return
/// }
/// ```
public struct HyperTrackEmulator: Service {
    /// The configuration it runs with.
    public let configuration: Configuration
    let engine: Engine
    let stepper: Stepper
    let started = StartSignal()
    let logger: Logger
    let onListening: @Sendable (String) async -> Void

    /// Creates an emulator; nothing listens until ``run()``.
    /// - Parameters:
    ///   - configuration: accounts, webhook target, clock, speed, seed (see ``Configuration``).
    ///   - logger: where the emulator logs (secrets are never logged).
    ///   - onListening: called with the base URL (`http://host:port`) once the server listens.
    /// - Throws: ``HyperTrackEmulatorError/Code/invalidConfiguration`` for a speed, rate or interval ≤ 0, a port
    ///   out of range or an empty account id or secret key.
    public init(
        configuration: Configuration,
        logger: Logger,
        onListening: @escaping @Sendable (String) async -> Void = { _ in }
    ) throws(HyperTrackEmulatorError) {
        try Self.validate(configuration)
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
        self.engine = Engine(configuration: configuration)
        self.stepper = Stepper(engine: engine, sender: WebhookSender(configuration: configuration, logger: logger))
    }

    private static func validate(_ c: Configuration) throws(HyperTrackEmulatorError) {
        func fail(_ message: String) -> HyperTrackEmulatorError { HyperTrackEmulatorError(.invalidConfiguration, message) }
        guard c.speed > 0, c.speed.isFinite else { throw fail("speed must be > 0 m/s") }
        guard (0...65_535).contains(c.port) else { throw fail("port must be 0...65535") }
        guard !c.accountID.isEmpty, !c.secretKey.isEmpty else { throw fail("account id and secret key are required") }
        guard c.arrivalRadius > 0 else { throw fail("arrival radius must be > 0 m") }
        guard c.options.tickInterval > 0, c.options.webhookRetryInterval >= 0, c.options.webhookMaxRetries >= 0,
            c.options.pageSize > 0, c.options.completionDelay >= 0, c.options.nearbyDelay >= 0,
            (1...256).contains(c.options.webhookConcurrency)
        else { throw fail("intervals and page size must be positive") }
        if let interval = c.options.locationReportInterval, !(interval > 0 && interval.isFinite) {
            throw fail("the location report interval must be > 0 s (or nil)")
        }
        if let interval = c.options.movingReportInterval, !(interval > 0 && interval.isFinite) {
            throw fail("the moving report interval must be > 0 s (or nil)")
        }
        if case .scaled(let rate, _) = c.clock.mode, !(rate > 0 && rate.isFinite) {
            throw fail("clock rate must be > 0")
        }
        if let url = c.webhookURL, URL(string: url)?.scheme?.hasPrefix("http") != true {
            throw fail("webhook URL must be an http(s) URL")
        }
    }

    /// Serves until cancelled or gracefully shut down; imports state first and exports it at the end when
    /// ``Options/importDirectory`` / ``Options/exportDirectory`` are set.
    public func run() async throws {
        if let directory = configuration.options.importDirectory { try await importState(from: directory) }
        let host = configuration.host
        let engine = self.engine
        let started = self.started
        let onListening = self.onListening
        let app = Application(
            responder: EmulatorResponder(engine: engine, stepper: stepper, configuration: configuration),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port), serverName: "hypertrack-emulator"),
            onServerRunning: { channel in
                let url = "http://\(host):\(channel.localAddress?.port ?? 0)"
                await engine.setBaseURL(url)
                await started.resolve(.success(url))
                await onListening(url)
            },
            logger: logger)
        logger.info("hypertrack emulator starting", metadata: ["emulator.port": "\(configuration.port)"])
        do {
            // The server stops on graceful shutdown or cancellation; the clock (scaled mode) stops on either, and
            // is cancelled when the server ends for any other reason.
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await app.run()
                    return true
                }
                if case .scaled(let rate, _) = configuration.clock.mode {
                    group.addTask {
                        await cancelWhenGracefulShutdown { await runClock(rate: rate) }
                        return false
                    }
                }
                while let serverEnded = try await group.next() {
                    if serverEnded { group.cancelAll() }
                }
            }
        } catch {
            await started.resolve(.failure(HyperTrackEmulatorError(.serverNotStarted, String(reflecting: error))))
            throw error
        }
        await started.resolve(.failure(HyperTrackEmulatorError(.serverNotStarted, "the server stopped")))
        if let directory = configuration.options.exportDirectory { try await exportState(to: directory) }
    }

    private func runClock(rate: Double) async {
        let clock = ContinuousClock()
        var last = clock.now
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: configuration.options.realTimeTickInterval)
            } catch {
                return
            }
            let current = clock.now
            let elapsed = current - last
            last = current
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            _ = await stepper.advance(by: seconds * rate)
        }
    }
}
