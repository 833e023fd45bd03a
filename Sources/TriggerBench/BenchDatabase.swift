import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO

/// The benchmark's own PostgreSQL: a fresh cluster with the server's default durability (synchronous commit on).
struct BenchDatabase: Sendable {
    let server: EmbeddedPostgres
    let database = "postgres"
    let logger: Logger

    /// Settings that differ from a stock server, reported with the results.
    static let settings: [String: String] = ["max_connections": "200", "shared_buffers": "256MB"]

    static func start(logger: Logger) throws -> BenchDatabase {
        let directory = NSTemporaryDirectory() + "trigger-bench-pg-\(getpid())"
        let server = try EmbeddedPostgres.started(
            configuration: .init(dataDirectory: directory, settings: Self.settings),
            logger: logger
        )
        return BenchDatabase(server: server, logger: logger)
    }

    func stop() {
        self.server.stop()
        try? FileManager.default.removeItem(atPath: self.server.configuration.dataDirectory)
    }

    var clientConfiguration: PostgresClient.Configuration {
        self.server.clientConfiguration(database: self.database)
    }

    /// Opens a dedicated connection, runs `body`, closes it.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: "127.0.0.1",
                port: self.server.port,
                username: self.server.configuration.superuser,
                password: nil,
                database: self.database,
                tls: .disable
            ),
            id: Int.random(in: 1...Int(Int32.max)),
            logger: self.logger
        )
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The server version and the settings that shape these numbers.
    func describeServer() async throws -> [(String, String)] {
        try await self.withConnection { connection in
            var result: [(String, String)] = []
            let rows = try await connection.query(
                """
                SELECT name, setting FROM pg_settings
                WHERE name IN ('server_version', 'synchronous_commit', 'fsync', 'shared_buffers', 'max_connections',
                               'wal_level', 'autovacuum')
                ORDER BY name
                """,
                logger: self.logger
            )
            for try await (name, setting) in rows.decode((String, String).self) {
                result.append((name, setting))
            }
            return result
        }
    }
}
