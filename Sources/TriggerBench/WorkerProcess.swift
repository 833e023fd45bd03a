import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime

/// The worker-memory measurement: the benchmark runs itself again as a process that is only a worker (its client
/// pool and the runtime, nothing else), lets it drain a backlog, and reads that process's peak resident memory.
enum WorkerProcess {
    /// Parent side: captures `backlog` events, runs the worker-only child until it drained them, returns its
    /// peak and final resident memory in MiB.
    static func measure(
        database: BenchDatabase,
        backlog: Int,
        worker: TriggerRuntime.Configuration
    ) async throws -> (current: Double, peak: Double) {
        try await RuntimeBenchmarks.clearQueue(database)
        try await RuntimeBenchmarks.fillBacklog(database, events: backlog)
        let url = "postgres://\(database.server.configuration.superuser)@127.0.0.1:\(database.server.port)/\(database.database)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [
            "--worker-database-url", url, "--worker-expect", String(backlog),
            "--concurrency", String(worker.concurrency), "--batch-size", String(worker.batchSize),
            "--transaction-batch-size", String(worker.transactionBatchSize),
            "--synchronous-completion", worker.synchronousCompletion ? "on" : "off",
            "--claim-interval-ms", String(Int(worker.claimInterval.seconds * 1000)),
            "--lane-start-delay-us", String(Int(worker.laneStartDelay.seconds * 1_000_000)),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = try await Task.detached { try output.fileHandleForReading.readToEnd() ?? Data() }.value
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix("worker-memory ") })
        else {
            throw BenchError("the worker-only process failed (status \(process.terminationStatus)): \(text)")
        }
        let fields = line.split(separator: " ").dropFirst().map { $0.split(separator: "=") }
        func value(_ key: String) -> Double {
            fields.first { $0.first.map(String.init) == key }.flatMap { $0.last.flatMap { Double($0) } } ?? .nan
        }
        return (value("rss_mib"), value("hwm_mib"))
    }

    /// Child side: a worker on `url` with the benchmark's function; exits once `expect` deliveries were handled
    /// and prints `worker-memory rss_mib=… hwm_mib=…`.
    static func run(url: String, expect: Int, worker: TriggerRuntime.Configuration, logger: Logger) async throws {
        let tally = Tally()
        var registry = FunctionRegistry()
        registry.register(RuntimeBenchmarks.function, on: .update("bench_rows"), as: RuntimeBenchmarks.BenchRow.self) {
            change,
            _ in
            tally.record(sentNanoseconds: change.after?.sent_ns ?? 0)
        }
        let client = PostgresClient(configuration: try DatabaseURL.clientConfiguration(url), backgroundLogger: logger)
        let runtime = TriggerRuntime(client: client, registry: registry, configuration: worker, logger: logger)
        try await ServiceGroup.withRunning([client, runtime], logger: logger) {
            try await tally.wait(for: expect, timeout: .seconds(600))
        }
        let memory = residentMemoryMiB()
        print("worker-memory rss_mib=\(memory.current) hwm_mib=\(memory.peak)")
    }
}
