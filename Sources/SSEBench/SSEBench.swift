import ArgumentParser
import AsyncHTTPClient
import BenchSupport
import EmbeddedPostgres
import Foundation
import LocalStack
import Logging
import NIOPosix

/// `sse-bench`: many idle server-sent-event streams on one API process (`ridesharing serve --api-only` beside a
/// PostgreSQL of the benchmark's own), then order changes at a steady rate: how long from a change's request to
/// its event on every stream that shows it, and what an idle stream costs in resident memory.
///
/// Riders sign in through the real code flow (the benchmark is the SMS provider: `SMSWebhookInbox`) and each opens
/// `streams / riders` streams of `GET /v1/events`. A change is a cancellation of the rider's open order or a new
/// booking, alternately, so every change is an `order.status` event for all of that rider's streams. No worker
/// runs: the events come from the database triggers of the API's own writes, and nothing else loads the machine.
@main
struct SSEBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sse-bench",
        abstract: "Idle SSE streams on one API process: memory per stream, and change → event latency under load."
    )

    @Option(help: "Concurrent streams (GET /v1/events).") var streams = 10_000
    @Option(help: "Riders; each opens streams / riders streams.") var riders = 1_000
    @Option(help: "Order changes per second.") var rate = 100
    @Option(help: "Seconds of changes.") var seconds = 30
    @Option(help: "Seconds the streams stay idle before the changes (heartbeats included) for the memory sample.")
    var idle = 20
    @Option(help: "Write the report into this file's sse-bench section (e.g. BENCHMARKS.md).") var write: String?

    func validate() throws {
        guard self.riders >= 1, self.streams >= self.riders, self.streams % self.riders == 0 else {
            throw ValidationError("--streams must be a positive multiple of --riders")
        }
        guard self.rate >= 1, self.seconds >= 1, self.idle >= 0 else {
            throw ValidationError("--rate ≥ 1, --seconds ≥ 1, --idle ≥ 0")
        }
    }

    func run() async throws {
        var logger = Logger(label: "sse-bench")
        logger.logLevel = .notice
        try FileLimit.raise(toAtLeast: self.streams + 1_000)
        let directory = NSTemporaryDirectory() + "sse-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try EmbeddedPostgres.started(
            configuration: .init(dataDirectory: directory + "/pg", settings: ["max_connections": "100"]),
            logger: logger
        )
        defer {
            server.stop()
            do { try FileManager.default.removeItem(atPath: directory) } catch { say("sse-bench: \(error)") }
        }
        let url = server.url(database: "postgres")
        try await runToCompletion(
            "ridesharing",
            ["migrate"],
            environment: ["DATABASE_URL": url, "LOG_LEVEL": "warning"]
        )
        let apiPort = try freePort()
        let plan = self.plan
        // The inbox logs every code it receives at notice; a thousand sign-ins are not news.
        var quiet = logger
        quiet.logLevel = .warning
        let result = try await SMSWebhookInbox.with(logger: quiet) { inbox in
            let api = try await ChildProcess.start(
                "api",
                executable: "ridesharing",
                arguments: ["serve", "--api-only"],
                environment: inbox.environment.merging([
                    "DATABASE_URL": url, "HTTP_PORT": "\(apiPort)", "LOG_LEVEL": "info", "METRICS_PORT": "0",
                    // Nothing here calls HyperTrack (no worker runs); serve wants an account all the same.
                    "HYPERTRACK_BASE_URL": "http://127.0.0.1:9", "HYPERTRACK_ACCOUNT_ID": "sse-bench",
                    "HYPERTRACK_SECRET_KEY": "sse-bench",
                ]) { $1 },
                readyMarker: "HTTP listening",
                logDirectory: directory
            )
            do {
                let result = try await StreamLoad(
                    plan: plan,
                    api: api,
                    apiPort: apiPort,
                    accounts: inbox.accounts(StackAPI(baseURL: "http://127.0.0.1:\(apiPort)"))
                ).run()
                try await api.stop()
                return result
            } catch {
                try await api.stop()
                throw error
            }
        }
        let report = SSEReport(
            plan: plan,
            result: result,
            command: CommandLine.arguments.joined(separator: " ")
        )
        say(report.markdown)
        if let path = self.write { try SSEReport.section.write(report.markdown, into: path) }
        guard result.missing == 0, result.duplicated == 0, result.failures.isEmpty else {
            throw BenchError("events were lost or repeated, or a stream failed: see the report")
        }
    }

    var plan: StreamPlan {
        StreamPlan(streams: self.streams, riders: self.riders, rate: self.rate, seconds: self.seconds, idle: self.idle)
    }
}

/// What one run does.
struct StreamPlan: Sendable {
    var streams: Int
    var riders: Int
    var rate: Int
    var seconds: Int
    var idle: Int

    var streamsPerRider: Int { self.streams / self.riders }
}

/// The process's open-file limit: each stream is a socket at both ends.
enum FileLimit {
    static func raise(toAtLeast wanted: Int) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw BenchError("getrlimit failed") }
        guard limit.rlim_max >= rlim_t(wanted) else {
            throw BenchError("the open-file limit's hard maximum is \(limit.rlim_max); \(wanted) are needed")
        }
        if limit.rlim_cur < rlim_t(wanted) {
            limit.rlim_cur = limit.rlim_max
            guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw BenchError("setrlimit failed") }
        }
    }
}
