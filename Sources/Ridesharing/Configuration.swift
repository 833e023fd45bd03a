import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// How log lines are written.
enum LogFormat: String, Sendable {
    case text
    case json
}

/// Everything the executable needs, from flags and the environment (flags win). Tests build it directly.
struct Configuration: Sendable {
    /// The error of bad configuration: names the variable or flag and what is wrong with it.
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    enum Database: Sendable {
        case url(String)
        case parts(host: String, port: Int, user: String, password: String?, database: String)
        case embedded(dataDirectory: String)
    }

    var database: Database
    var maximumConnections: Int
    var logLevel: Logger.Level
    /// `LOG_FORMAT` / `--log-format`: `text` (default) or `json` (one object per line).
    var logFormat: LogFormat = .text
    var runtime: TriggerRuntime.Configuration

    /// Reads flags and environment.
    /// - Parameters:
    ///   - global: The global flags.
    ///   - worker: The worker flags, when the command has them.
    ///   - environment: The environment (the process's, or a test's).
    init(global: GlobalOptions, worker: WorkerOptions? = nil, environment: [String: String]) throws {
        try self.init(global: global, worker: worker, environment: EnvironmentReader(environment))
    }

    /// Reads flags and the environment through `environment` (which records what is read).
    init(global: GlobalOptions, worker: WorkerOptions? = nil, environment: EnvironmentReader) throws {
        func value(_ key: String) -> String? {
            environment[key].flatMap { $0.isEmpty ? nil : $0 }
        }
        func boolean(_ flag: Bool?, _ key: String, default fallback: Bool) throws -> Bool {
            if let flag { return flag }
            guard let text = value(key) else { return fallback }
            guard let parsed = Bool(text.lowercased()) else {
                throw Invalid(description: "\(key) must be true or false, got \"\(text)\"")
            }
            return parsed
        }
        func integer(_ flag: Int?, _ key: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
            let parsed: Int
            if let flag {
                parsed = flag
            } else if let text = value(key) {
                guard let number = Int(text) else { throw Invalid(description: "\(key) must be an integer, got \"\(text)\"") }
                parsed = number
            } else {
                parsed = fallback
            }
            guard range.contains(parsed) else {
                throw Invalid(description: "\(key) must be in \(range.lowerBound)...\(range.upperBound), got \(parsed)")
            }
            return parsed
        }

        if global.embeddedPostgres {
            self.database = .embedded(dataDirectory: value("EMBEDDED_POSTGRES_DATA") ?? ".local/pg")
        } else if let url = global.databaseURL ?? value("DATABASE_URL") {
            _ = try DatabaseURL.parse(url)
            self.database = .url(url)
        } else {
            self.database = .parts(
                host: value("POSTGRES_HOST") ?? "127.0.0.1",
                port: try integer(nil, "POSTGRES_PORT", default: 5432, range: 1...65535),
                user: value("POSTGRES_USER") ?? "postgres",
                password: value("POSTGRES_PASSWORD"),
                database: value("POSTGRES_DB") ?? "postgres"
            )
        }
        self.maximumConnections = try integer(nil, "DATABASE_MAX_CONNECTIONS", default: 20, range: 2...1000)
        let level = global.logLevel ?? value("LOG_LEVEL") ?? "info"
        guard let logLevel = Logger.Level(rawValue: level.lowercased()) else {
            throw Invalid(description: "LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical; got \"\(level)\"")
        }
        self.logLevel = logLevel
        let format = global.logFormat ?? value("LOG_FORMAT") ?? "text"
        guard let logFormat = LogFormat(rawValue: format.lowercased()) else {
            throw Invalid(description: "LOG_FORMAT must be text or json; got \"\(format)\"")
        }
        self.logFormat = logFormat

        var runtime = TriggerRuntime.Configuration()
        runtime.concurrency = try integer(worker?.concurrency, "WORKER_CONCURRENCY", default: 8, range: 1...1000)
        runtime.batchSize = try integer(worker?.batchSize, "WORKER_BATCH_SIZE", default: 64, range: 1...10_000)
        runtime.transactionBatchSize = try integer(
            worker?.transactionBatchSize, "WORKER_TRANSACTION_BATCH_SIZE", default: 32, range: 1...60
        )
        runtime.synchronousCompletion = try boolean(
            worker?.synchronousCompletion, "WORKER_SYNCHRONOUS_COMPLETION", default: runtime.synchronousCompletion
        )
        runtime.claimInterval = .milliseconds(
            try integer(worker?.claimIntervalMs, "WORKER_CLAIM_INTERVAL_MS", default: 10, range: 0...1000)
        )
        runtime.pollInterval = .milliseconds(
            try integer(worker?.pollIntervalMs, "WORKER_POLL_INTERVAL_MS", default: 1000, range: 10...3_600_000)
        )
        let lease = try integer(worker?.leaseSeconds, "WORKER_LEASE_SECONDS", default: 30, range: 2...86_400)
        runtime.leaseDuration = .seconds(lease)
        runtime.leaseRenewalInterval = .milliseconds(lease * 1000 / 3)
        runtime.shutdownGracePeriod = .seconds(
            try integer(worker?.shutdownGraceSeconds, "WORKER_SHUTDOWN_GRACE_SECONDS", default: 20, range: 0...3600)
        )
        runtime.retention = .seconds(
            try integer(worker?.retentionHours, "WORKER_RETENTION_HOURS", default: 168, range: 0...87_600) * 3600
        )
        runtime.deadRetention = .seconds(
            try integer(worker?.deadRetentionHours, "WORKER_DEAD_RETENTION_HOURS", default: 720, range: 0...87_600) * 3600
        )
        runtime.listen = try boolean(worker?.listen, "WORKER_LISTEN", default: runtime.listen)
        runtime.channel = worker?.channel ?? value("WORKER_CHANNEL") ?? runtime.channel
        runtime.workerID = worker?.workerID ?? value("WORKER_ID") ?? runtime.workerID
        guard runtime.concurrency < self.maximumConnections else {
            throw Invalid(
                description: "WORKER_CONCURRENCY (\(runtime.concurrency)) must be below DATABASE_MAX_CONNECTIONS "
                    + "(\(self.maximumConnections)): each handler holds a connection, and LISTEN holds one more"
            )
        }
        try runtime.validate()
        self.runtime = runtime
    }
}
