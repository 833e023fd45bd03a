import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL server of a test process, and a fresh database for each test.
///
/// The first use starts a throwaway server (`initdb` into a temporary folder, `pg_ctl` on a free loopback port, as
/// the `postgres` user when root); it is stopped when the process exits. With `POSTGRES_URL` set, that server is
/// used instead (its user must be allowed to create databases). It never skips: without a server it throws an
/// error that says how to install one.
///
/// ```swift
/// try await TestDatabase.shared.withDatabase { client, configuration in
///     try await client.query("SELECT 1")
/// }
/// ```
public actor TestDatabase {
    /// The process-wide instance.
    public static let shared = TestDatabase()

    private enum Server {
        case embedded(EmbeddedPostgres)
        case external(DatabaseURL.Parts)
    }
    private var server: Result<Server, any Error>?
    private var counter = 0

    private init() {}

    /// Runs `body` with a running client on a new, empty database that is dropped afterwards.
    /// - Parameters:
    ///   - logger: The client's logger.
    ///   - body: Receives the running client and its configuration (to open more clients or connections).
    public func withDatabase<Result: Sendable>(
        logger: Logger = Logger(label: "test-database", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: @Sendable (PostgresClient, PostgresClient.Configuration) async throws -> Result
    ) async throws -> Result {
        trace("create requested")
        let name: String
        do {
            name = try await self.createDatabase(logger: logger)
        } catch {
            // PSQLError's description hides the server's message; the test's record shows only that description.
            FileHandle.standardError.write(Data("[testdb] could not create a database: \(String(reflecting: error))\n".utf8))
            throw error
        }
        trace("created \(name)")
        let configuration = try self.clientConfiguration(database: name)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await client.run() }
                    defer { group.cancelAll() }
                    let result = try await body(client, configuration)
                    trace("body returned \(name); stopping its client")
                    return result
                }
            )
        } catch {
            result = .failure(error)
        }
        trace("body done \(name)")
        do {
            try await self.dropDatabase(name, logger: logger)
            trace("dropped \(name)")
        } catch {
            // The test's own outcome stands; the leaked database goes with the server at the end of the run.
            FileHandle.standardError.write(Data("[testdb] could not drop \(name): \(String(reflecting: error))\n".utf8))
        }
        return try result.get()
    }

    /// The configuration of one connection to `database` on the test server (starting the server if needed; the test
    /// server has no TLS).
    public func connectionConfiguration(database: String) throws -> PostgresConnection.Configuration {
        let configuration = try self.clientConfiguration(database: database)
        return PostgresConnection.Configuration(
            host: configuration.host ?? "127.0.0.1",
            port: configuration.port ?? 5432,
            username: configuration.username,
            password: configuration.password,
            database: configuration.database,
            tls: .disable
        )
    }

    /// The configuration of a client for `database` on the test server (starting the server if needed).
    public func clientConfiguration(database: String) throws -> PostgresClient.Configuration {
        switch try self.ensureServer() {
        case .embedded(let server):
            return server.clientConfiguration(database: database)
        case .external(let parts):
            return PostgresClient.Configuration(
                host: parts.host,
                port: parts.port,
                username: parts.username,
                password: parts.password,
                database: database,
                tls: .disable
            )
        }
    }

    /// The `postgres://` URL of `database` on the test server, for child processes (password included).
    public func connectionURL(database: String) throws -> String {
        switch try self.ensureServer() {
        case .embedded(let server):
            return server.url(database: database)
        case .external(let parts):
            let credentials = parts.password.map { "\(parts.username):\($0)" } ?? parts.username
            return "postgres://\(credentials)@\(parts.host):\(parts.port)/\(database)"
        }
    }

    /// Creates an empty database and returns its name.
    public func createDatabase(logger: Logger) async throws -> String {
        self.counter += 1
        let name = "t_\(getpid())_\(self.counter)_\(UInt32.random(in: 0...UInt32.max))"
        try await self.withAdminConnection(logger: logger) { connection in
            try await connection.query("CREATE DATABASE \(unescaped: name)", logger: logger)
        }
        return name
    }

    /// Drops a database made by `createDatabase`, ending its sessions.
    public func dropDatabase(_ name: String, logger: Logger) async throws {
        try await self.withAdminConnection(logger: logger) { connection in
            try await connection.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger)
        }
    }

    private func withAdminConnection(
        logger: Logger,
        _ body: @Sendable (PostgresConnection) async throws -> Void
    ) async throws {
        let connection = try await PostgresConnection.connect(
            configuration: try self.connectionConfiguration(database: self.adminDatabase()),
            id: 0,
            logger: logger
        )
        do {
            try await body(connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private func adminDatabase() throws -> String {
        switch try self.ensureServer() {
        case .embedded: return "postgres"
        case .external(let parts): return parts.database
        }
    }

    private func ensureServer() throws -> Server {
        if let server = self.server { return try server.get() }
        let result = Swift.Result { try Self.startServer() }
        self.server = result
        return try result.get()
    }

    private static func startServer() throws -> Server {
        if let url = ProcessInfo.processInfo.environment["POSTGRES_URL"], !url.isEmpty {
            return .external(try DatabaseURL.parse(url))
        }
        let logger = Logger(label: "test-database", factory: { _ in SwiftLogNoOpLogHandler() })
        return .embedded(try EmbeddedPostgres.startThrowaway(name: "ridesharing-test-pg", logger: logger))
    }
}

/// Prints test-database progress to standard error when `TESTDB_TRACE` is set (diagnosing hung test runs).
func trace(_ message: String) {
    if ProcessInfo.processInfo.environment["TESTDB_TRACE"] != nil {
        FileHandle.standardError.write(Data("[testdb] \(message)\n".utf8))
    }
}
