import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime

extension Configuration {
    /// Runs `body` with the client configuration of the configured database; an embedded server is started first
    /// and stopped afterwards.
    func withDatabase<T>(logger: Logger, _ body: (PostgresClient.Configuration) async throws -> T) async throws -> T {
        var client: PostgresClient.Configuration
        var server: EmbeddedPostgres?
        switch self.database {
        case .url(let url):
            client = try DatabaseURL.clientConfiguration(url, defaults: self.databaseTLS)
        case .parts(let host, let port, let user, let password, let database):
            client = PostgresClient.Configuration(
                host: host, port: port, username: user, password: password, database: database,
                tls: try self.databaseTLS.clientTLS()
            )
        case .embedded(let directory):
            let absolute = URL(fileURLWithPath: directory, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
                .standardizedFileURL.path
            let embedded = try EmbeddedPostgres.started(configuration: .init(dataDirectory: absolute), logger: logger)
            server = embedded
            client = embedded.clientConfiguration(database: "postgres")
        }
        client.options.maximumConnections = self.maximumConnections
        defer { server?.stop() }
        return try await body(client)
    }

    /// Runs `body` with a running client on the configured database.
    func withClient<T: Sendable>(logger: Logger, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        try await self.withDatabase(logger: logger) { configuration in
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            return try await ServiceGroup.withRunning([client], logger: logger) { try await body(client) }
        }
    }

    /// The process's logger at the configured level (the executable bootstraps the backend).
    func logger(label: String = "ridesharing") -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = self.logLevel
        return logger
    }
}
