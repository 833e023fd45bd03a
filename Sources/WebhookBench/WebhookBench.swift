import ArgumentParser
import AsyncHTTPClient
import BenchSupport
import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO

/// `webhook-bench`: HyperTrack location webhooks into one API process, with one worker draining them, beside a
/// PostgreSQL of the benchmark's own: acknowledgement latency and throughput at rising concurrency (closed loop),
/// then at a fixed rate (open loop: issue 19's target is 2,000 location events/s with ack p99 ≤ 50 ms).
///
/// The API and the worker are two processes (`serve --api-only`, `serve --worker-only`), as issue 19's target is
/// stated and as production runs them: the acknowledgement is the API's, the drain is the worker's, and each one's
/// CPU is read apart. Drivers are rows written straight into `users` with their device ids (the sign-in flow is
/// not what is measured); every delivery carries `--events-per-delivery` location events (10 by default) of as many
/// drivers, signed as HyperTrack signs; `--driving` of the drivers have an open leg, so the inbox stores theirs.
@main
struct WebhookBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook-bench",
        abstract: "Signed location webhooks into one API and one worker: ack latency, throughput, worker backlog."
    )

    @Option(help: "Drivers (devices) the deliveries report for.") var drivers = 10_000
    @Option(help: "Closed-loop concurrency levels, comma-separated (empty: none).") var levels = "1,4,16,64"
    @Option(help: "Seconds of load per closed-loop level.") var seconds = 20
    @Option(help: "Open-loop rate in deliveries/s (0: no open-loop run).") var rate = 200
    @Option(help: "Location events (of as many drivers) in each delivery; the city's emulator sends up to ~500.")
    var eventsPerDelivery = 10
    @Option(help: "Drivers on a drive (an open leg each), whose locations the inbox stores.") var driving = 0
    @Option(help: "Seconds of the open-loop run.") var rateSeconds = 30
    @Option(help: "Seconds the worker may take to drain after a run before the benchmark moves on.")
    var drainTimeout = 120
    @Option(help: "Extra environment for both serve processes, NAME=VALUE, comma-separated.") var serveEnvironment =
        ""
    @Option(help: "Write the report into this file's webhook-bench section (e.g. BENCHMARKS.md).") var write: String?

    func validate() throws {
        guard self.drivers >= 10, self.seconds >= 1, self.rateSeconds >= 1, self.rate >= 0 else {
            throw ValidationError("--drivers ≥ 10, --seconds ≥ 1, --rate-seconds ≥ 1, --rate ≥ 0")
        }
        guard (1...self.drivers).contains(self.eventsPerDelivery), (0...self.drivers).contains(self.driving) else {
            throw ValidationError("--events-per-delivery in 1...--drivers, --driving in 0...--drivers")
        }
        _ = try self.concurrencyLevels()
        _ = try self.extraEnvironment()
    }

    func concurrencyLevels() throws -> [Int] {
        try self.levels.split(separator: ",").map {
            guard let level = Int($0.trimmingCharacters(in: .whitespaces)), level >= 1 else {
                throw ValidationError("--levels: \"\($0)\" is not a positive integer")
            }
            return level
        }
    }

    func extraEnvironment() throws -> [String: String] {
        var environment: [String: String] = [:]
        for pair in self.serveEnvironment.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("--serve-environment: \"\(pair)\" is not NAME=VALUE") }
            environment[parts[0]] = parts[1]
        }
        return environment
    }

    func run() async throws {
        var logger = Logger(label: "webhook-bench")
        logger.logLevel = .notice
        let directory = NSTemporaryDirectory() + "webhook-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try EmbeddedPostgres.started(
            configuration: .init(dataDirectory: directory + "/pg", settings: ["max_connections": "100"]),
            logger: logger
        )
        defer {
            server.stop()
            do { try FileManager.default.removeItem(atPath: directory) } catch { say("webhook-bench: \(error)") }
        }
        let url = server.url(database: "postgres")
        try await runToCompletion(
            "ridesharing",
            ["migrate"],
            environment: ["DATABASE_URL": url, "LOG_LEVEL": "warning"]
        )
        let client = PostgresClient(
            configuration: server.clientConfiguration(database: "postgres"),
            backgroundLogger: logger
        )
        let results = try await withThrowingTaskGroup(of: [LevelResult]?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            let database = BenchDatabase(client: client, logger: logger)
            try await database.addDrivers(self.drivers, driving: self.driving)
            say("webhook-bench: \(self.drivers) drivers added, \(self.driving) of them on a drive")
            return try await self.run(database: database, url: url, directory: directory)
        }
        let report = WebhookReport(
            results: results,
            drivers: self.drivers,
            eventsPerDelivery: self.eventsPerDelivery,
            driving: self.driving,
            command: CommandLine.arguments.joined(separator: " "),
            environment: try self.extraEnvironment()
        )
        say(report.markdown)
        if let path = self.write { try WebhookReport.section.write(report.markdown, into: path) }
        let failures = results.flatMap(\.failures)
        guard failures.isEmpty else {
            throw BenchError("\(failures.count) deliveries were not acknowledged with 202; first: \(failures[0])")
        }
    }

    private func run(database: BenchDatabase, url: String, directory: String) async throws -> [LevelResult] {
        let (apiPort, workerPort) = (try freePort(), try freePort())
        let secret = "webhook-bench-secret"
        let environment = [
            "DATABASE_URL": url, "LOG_LEVEL": "info", "METRICS_PORT": "0",
            "HYPERTRACK_WEBHOOK_SECRET": secret, "HYPERTRACK_WEBHOOK_PATH_SECRETS": secret,
            // Location events never call HyperTrack; serve wants an account all the same.
            "HYPERTRACK_BASE_URL": "http://127.0.0.1:9", "HYPERTRACK_ACCOUNT_ID": "webhook-bench",
            "HYPERTRACK_SECRET_KEY": "webhook-bench",
        ].merging(try self.extraEnvironment()) { $1 }
        let api = try await ChildProcess.start(
            "api",
            executable: "ridesharing",
            arguments: ["serve", "--api-only"],
            environment: environment.merging(["HTTP_PORT": "\(apiPort)"]) { $1 },
            readyMarker: "HTTP listening",
            logDirectory: directory
        )
        let worker: ChildProcess
        do {
            worker = try await ChildProcess.start(
                "worker",
                executable: "ridesharing",
                arguments: ["serve", "--worker-only"],
                environment: environment.merging(["HTTP_PORT": "\(workerPort)"]) { $1 },
                readyMarker: "HTTP listening",
                logDirectory: directory
            )
        } catch {
            try await api.stop()
            throw error
        }
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 512)
            )
        )
        let load = WebhookLoad(
            http: http,
            url: "http://127.0.0.1:\(apiPort)/v1/hypertrack/webhooks/\(secret)",
            secret: secret,
            drivers: self.drivers,
            eventsPerDelivery: self.eventsPerDelivery
        )
        let runner = LevelRunner(
            load: load,
            database: database,
            processes: [api, worker],
            drainTimeout: .seconds(self.drainTimeout)
        )
        do {
            // A short warm-up: first connections, prepared statements, the API's and worker's first allocations.
            _ = try await load.closedLoop(concurrency: 4, for: .seconds(2))
            _ = try await database.drain(timeout: .seconds(self.drainTimeout))
            var results: [LevelResult] = []
            for level in try self.concurrencyLevels() {
                results.append(try await runner.run(.closed(concurrency: level), for: .seconds(self.seconds)))
            }
            if self.rate > 0 {
                results.append(try await runner.run(.open(rate: self.rate), for: .seconds(self.rateSeconds)))
            }
            try await http.shutdown()
            try await worker.stop()
            try await api.stop()
            return results
        } catch {
            try? await http.shutdown()
            try? await worker.stop()
            try? await api.stop()
            throw error
        }
    }
}
