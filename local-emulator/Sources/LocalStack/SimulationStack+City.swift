import BenchSupport
import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization

extension SimulationStack {
    /// Runs `city` on this stack (its URLs, sign-in codes and database replace the configuration's) with `chaos`
    /// beside the rides; the report says which stack and settings it ran on and what the chaos did.
    /// - Parameters:
    ///   - city: The city; its URLs and `codes` are replaced.
    ///   - chaos: What goes wrong during the rides.
    ///   - logger: The logger.
    ///   - say: Receives the progress lines.
    /// - Returns: The report and the chaos's log.
    public func run(
        _ city: CitySimulation.Configuration,
        chaos: SimulationChaos.Configuration,
        logger: Logger,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> (report: CitySimulation.Report, chaos: SimulationChaos.Log) {
        var city = city
        city.apiURL = self.apiURL
        city.emulatorURL = self.emulatorURL
        city.apiMetricsURL = self.apiMetricsURL
        city.codes = self.codes
        if city.processes.isEmpty, city.currentProcesses == nil {
            city.currentProcesses = { self.measuredProcesses }
        }
        let runner = SimulationChaos(configuration: chaos, stack: self)
        if chaos.isOn { city.duringRides = { await runner.run() } }
        var report = try await SimulationDatabase.with(
            configuration: self.postgres.connectionConfiguration(database: "postgres"),
            logger: logger
        ) { database in
            try await CitySimulation(configuration: city, database: database, logger: logger, say: say).run()
        }
        await runner.finish()
        report.chaos = self.lines + (chaos.isOn ? [""] + runner.lines : [])
        return (report, runner.log)
    }

    /// The stack's processes as they are now (a restarted one under its new pid), PostgreSQL (the postmaster's
    /// memory, the CPU of all its processes) and this one (the simulated drivers and riders, and the clock), for
    /// the report's memory and CPU lines: on a 2-core machine they share, each one's share says what limits a run.
    var measuredProcesses: [MeasuredProcess] {
        var processes = self.children.withLock { children in
            children.map { MeasuredProcess(name: $0.key, pid: $0.value.pid) }.sorted { $0.name < $1.name }
        }
        let pidFile = self.directory + "/pg/postmaster.pid"
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = text.split(separator: "\n").first.flatMap({ Int32($0) })
        {
            processes.append(MeasuredProcess(name: "postgres (all its processes' CPU)", pid: pid, withChildren: true))
        }
        processes.append(MeasuredProcess(name: "simulate (drivers, riders, clock)", pid: getpid()))
        return processes
    }

    /// The stack and its settings, for the report.
    var lines: [String] {
        let c = self.configuration
        return [
            "Stack: this build's processes, started by simulate: PostgreSQL (embedded, fsync off, synchronous commit on), `hypertrack-emulator` "
                + "(manual clock, a step every \(c.emulatorTickInterval) emulated s; a still phone reports every "
                + (c.locationReportInterval.map { "\($0) emulated s" } ?? "never") + ", a driving one every "
                + (c.movingReportInterval.map { "\($0) emulated s" } ?? "step")
                + "; deliveries of up to \(c.webhookBatchSize) events, \(c.webhookConcurrency) in flight at once), "
                + "1 `serve --api-only`" + (c.apiNiceness == 0 ? "" : " at nice \(c.apiNiceness)")
                + ", \(c.workers) `serve --worker-only`; settings "
                + self.configuration.settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: ", ") + "."
        ]
    }
}
