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

/// The database, logging and worker settings of the executable, read from the ``Setting`` declarations through a
/// ``SettingsReader``. Tests build it directly.
struct Configuration: Sendable {
    /// The error of bad configuration: names the variable and what is wrong with it.
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    enum Database: Sendable {
        case url(String)
        case parts(host: String, port: Int, user: String, password: String?, database: String)
        case embedded(dataDirectory: String)
    }

    var database: Database
    /// `DATABASE_SSL_MODE` and `DATABASE_SSL_ROOT_CERT`: the TLS of a `.parts` database, and of a `.url` one
    /// where the URL says nothing (its `sslmode` and `sslrootcert` win).
    var databaseTLS = DatabaseTLS()
    /// Where ``database`` came from, for messages that name it.
    var databaseSource = "DATABASE_URL, POSTGRES_* or their defaults"
    var maximumConnections: Int
    var logLevel: Logger.Level
    /// `LOG_FORMAT` / `--log-format`: `text` (default) or `json` (one object per line).
    var logFormat: LogFormat = .text
    var runtime: TriggerRuntime.Configuration

    /// Reads the database, logging and worker settings.
    /// - Parameters:
    ///   - settings: The flags, environment and settings file.
    ///   - embeddedPostgres: `--embedded-postgres`: start a PostgreSQL of our own in `EMBEDDED_POSTGRES_DATA`.
    init(_ settings: SettingsReader, embeddedPostgres: Bool = false) throws {
        if embeddedPostgres {
            self.database = .embedded(dataDirectory: try settings.string(.embeddedPostgresData))
        } else if let url = try settings.optionalString(.databaseURL) {
            let tls = try Self.databaseTLS(settings)
            self.databaseTLS = tls
            // Built once now so that a bad URL, sslmode or CA file stops the process at start.
            try Self.invalid { _ = try DatabaseURL.clientConfiguration(url, defaults: tls) }
            self.database = .url(url)
        } else {
            self.database = .parts(
                host: try settings.string(.postgresHost),
                port: try settings.integer(.postgresPort),
                user: try settings.string(.postgresUser),
                password: try settings.optionalString(.postgresPassword),
                database: try settings.string(.postgresDatabase)
            )
            let tls = try Self.databaseTLS(settings)
            self.databaseTLS = tls
            try Self.invalid { _ = try tls.clientTLS() }
        }
        self.maximumConnections = try settings.integer(.databaseMaxConnections)
        guard let logLevel = Logger.Level(rawValue: try settings.choice(.logLevel)),
            let logFormat = LogFormat(rawValue: try settings.choice(.logFormat))
        else { preconditionFailure("Setting.logLevel and .logFormat list only Logger.Level and LogFormat words") }
        self.logLevel = logLevel
        self.logFormat = logFormat

        var runtime = TriggerRuntime.Configuration()
        runtime.concurrency = try settings.integer(.workerConcurrency)
        runtime.batchSize = try settings.integer(.workerBatchSize)
        runtime.transactionBatchSize = try settings.integer(.workerTransactionBatchSize)
        runtime.transactionWindow = .milliseconds(try settings.integer(.workerTransactionWindow))
        runtime.synchronousCompletion = try settings.boolean(.workerSynchronousCompletion)
        runtime.claimInterval = .milliseconds(try settings.integer(.workerClaimInterval))
        runtime.pollInterval = .milliseconds(try settings.integer(.workerPollInterval))
        let lease = try settings.integer(.workerLease)
        runtime.leaseDuration = .seconds(lease)
        runtime.leaseRenewalInterval = .milliseconds(lease * 1000 / 3)
        runtime.shutdownGracePeriod = .seconds(try settings.integer(.workerShutdownGrace))
        runtime.retention = .seconds(try settings.integer(.workerRetention) * 3600)
        runtime.deadRetention = .seconds(try settings.integer(.workerDeadRetention) * 3600)
        runtime.listen = try settings.boolean(.workerListen)
        runtime.channel = try settings.string(.workerChannel)
        runtime.workerID = try settings.optionalString(.workerID) ?? runtime.workerID
        guard runtime.concurrency < self.maximumConnections else {
            throw Invalid(
                description: "WORKER_CONCURRENCY (\(runtime.concurrency)) must be below DATABASE_MAX_CONNECTIONS "
                    + "(\(self.maximumConnections)): each handler holds a connection, and LISTEN holds one more"
            )
        }
        try runtime.validate()
        self.runtime = runtime
    }

    /// Runs `body`, turning a URL or TLS error into ``Invalid`` (its message names the setting; a URL's own
    /// errors are prefixed with `DATABASE_URL`).
    private static func invalid(_ body: () throws -> Void) throws {
        do { try body() } catch let error as EmbeddedPostgresError {
            throw Invalid(description: error.code == .invalidURL ? "DATABASE_URL: \(error.message)" : error.message)
        }
    }

    /// `DATABASE_SSL_MODE` and `DATABASE_SSL_ROOT_CERT`.
    private static func databaseTLS(_ settings: SettingsReader) throws -> DatabaseTLS {
        guard let mode = DatabaseTLS.Mode(rawValue: try settings.choice(.databaseSSLMode)) else {
            preconditionFailure("Setting.databaseSSLMode lists only DatabaseTLS.Mode words")
        }
        return DatabaseTLS(
            mode: mode, rootCertificate: try settings.optionalString(.databaseSSLRootCert),
            modeSource: Setting.databaseSSLMode.environmentName,
            rootCertificateSource: Setting.databaseSSLRootCert.environmentName
        )
    }
}
