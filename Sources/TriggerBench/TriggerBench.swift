import BenchSupport
import ArgumentParser
import Foundation
import Logging
import TriggerRuntime

/// Measures the trigger runtime against the floors of the same PostgreSQL, and writes BENCHMARKS.md.
@main
struct TriggerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger-bench",
        abstract:
            "Benchmark the trigger runtime on a PostgreSQL it starts itself; writes BENCHMARKS.md."
    )

    @Option(help: "Seconds of steady 100 events/s for the latency measurement.")
    var latencySeconds: Int = 60

    @Option(help: "Events per second for the latency measurement.")
    var rate: Int = 100

    @Option(help: "Events in the backlog-drain measurement.")
    var backlog: Int = 100_000

    @Option(help: "Seconds of each throughput measurement (capture-only, steady load).")
    var throughputSeconds: Int = 10

    @Option(help: "Repetitions of each throughput measurement; the report gives the median.")
    var repeats: Int = 3

    @Option(
        help: "Run only these parts (comma-separated: floors, latency, drain, timers, steady, memory); all by default."
    )
    var only: String = "floors,latency,drain,timers,steady,memory"

    @Option(help: "Timers due at the same instant in the timers measurement.")
    var timers: Int = 100_000

    @Option(help: "Worker setting: handlers at once (default: the runtime's default).")
    var concurrency: Int?

    @Option(help: "Worker setting: deliveries per claim (default: the runtime's default).")
    var batchSize: Int?

    @Option(help: "Worker setting: deliveries per transaction, at most (default: the runtime's default).")
    var transactionBatchSize: Int?

    @Option(help: "Worker setting: milliseconds between claims under a steady stream (default: the runtime's default).")
    var claimIntervalMs: Int?

    @Option(help: "Worker setting: microseconds a claimed delivery waits before another lane starts (default: the runtime's default).")
    var laneStartDelayUs: Int?

    @Option(help: "Worker setting: 'on' or 'off' (default: the runtime's default).")
    var synchronousCompletion: String?

    @Option(help: .hidden)
    var workerDatabaseURL: String?

    @Option(help: .hidden)
    var workerExpect: Int = 0

    @Option(help: "Where to write the report; '-' prints it only.")
    var output: String = "BENCHMARKS.md"

    mutating func run() async throws {
        let command =
            (["swift", "run", "-c", "release", "trigger-bench"] + CommandLine.arguments.dropFirst())
            .joined(separator: " ")
        var logger = Logger(label: "trigger-bench")
        logger.logLevel =
            ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
            ?? .info
        var worker = TriggerRuntime.Configuration()
        if let concurrency = self.concurrency { worker.concurrency = concurrency }
        if let batchSize = self.batchSize { worker.batchSize = batchSize }
        if let size = self.transactionBatchSize { worker.transactionBatchSize = size }
        if let synchronous = self.synchronousCompletion { worker.synchronousCompletion = synchronous != "off" }
        if let interval = self.claimIntervalMs { worker.claimInterval = .milliseconds(interval) }
        if let delay = self.laneStartDelayUs { worker.laneStartDelay = .microseconds(delay) }
        try worker.validate()
        if let url = self.workerDatabaseURL {
            // The worker-only child of the memory measurement.
            try await WorkerProcess.run(url: url, expect: self.workerExpect, worker: worker, logger: logger)
            return
        }
        let database = try BenchDatabase.start(logger: logger)
        defer { database.stop() }
        var report = Report(
            command: command,
            machine: .current(),
            server: try await database.describeServer()
        )
        let throughput = Duration.seconds(self.throughputSeconds)

        let parts = Set(self.only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        if parts.contains("floors") {
            logger.info("floor: NOTIFY round trip")
            report.notifyFloor = try await Floors.notifyRoundTrip(
                database,
                rate: self.rate,
                duration: .seconds(self.latencySeconds)
            )

            logger.info("floor: plain UPDATE and capture-only rate")
            report.plainUpdateRate = try await self.repeated {
                try await Floors.updateRate(database, withCapture: false, writers: 2, duration: throughput)
            }
            report.captureOnlyRate = try await self.repeated {
                try await Floors.updateRate(database, withCapture: true, writers: 2, duration: throughput)
            }

            logger.info("floor: raw SKIP LOCKED claim loop")
            report.rawClaimRate = try await self.repeated {
                try await Floors.rawClaimDrain(database, count: self.backlog)
            }
        }

        try await RuntimeBenchmarks.run(
            database: database,
            worker: worker,
            rate: self.rate,
            latencyDuration: .seconds(self.latencySeconds),
            backlog: self.backlog,
            throughputDuration: throughput,
            repeats: self.repeats,
            parts: parts,
            report: &report
        )

        if parts.contains("timers") {
            logger.info("timers: \(self.timers) timers due at once, 1 worker")
            report.timers = try await TimerBenchmark.run(database: database, worker: worker, count: self.timers)
        }

        if parts.contains("memory") {
            logger.info("worker memory: a worker-only process drains \(self.backlog) events")
            report.workerProcessMemory = try await WorkerProcess.measure(
                database: database,
                backlog: self.backlog,
                worker: worker
            )
        }

        let markdown = report.markdown()
        print(markdown)
        if self.output != "-" {
            // The other benchmarks' sections (soak-bench, sse-bench, simulate) stay: this tool owns only the rest.
            let others = try ReportSection.sections(in: self.output)
            let file = others.isEmpty ? markdown : markdown + (markdown.hasSuffix("\n") ? "\n" : "\n\n") + others + "\n"
            try file.write(toFile: self.output, atomically: true, encoding: .utf8)
            logger.info("wrote \(self.output)")
        }
    }

    /// Runs a throughput measurement `repeats` times and keeps every value (the report shows the median).
    func repeated(_ measure: () async throws -> Double) async throws -> [Double] {
        var values: [Double] = []
        for _ in 0..<max(1, self.repeats) { values.append(try await measure()) }
        return values
    }
}
