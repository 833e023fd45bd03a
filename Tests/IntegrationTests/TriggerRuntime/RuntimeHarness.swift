import EmbeddedPostgres
import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime

/// A row of the tests' `items` table.
struct Item: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var value: Int
}

enum RuntimeHarness {
    static let itemsTable = "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, value int NOT NULL, note json)"

    /// A fresh database with the runtime's schema, the `items` table and the registry's triggers.
    static func withPreparedDatabase<T: Sendable>(
        registry: FunctionRegistry,
        logger: Logger,
        _ body: @Sendable (PostgresClient, PostgresClient.Configuration) async throws -> T
    ) async throws -> T {
        try await TestDatabase.shared.withDatabase { client, configuration in
            try await Self.prepare(client, registry: registry, logger: logger)
            return try await body(client, configuration)
        }
    }

    /// The runtime's schema, the `items` table and the registry's triggers, on `client`'s database.
    private static func prepare(_ client: PostgresClient, registry: FunctionRegistry, logger: Logger) async throws {
        try await TriggerRuntime.prepare(
            client: client,
            registry: registry,
            migrations: [Migration(group: "test", name: "0001_items", statements: [itemsTable])],
            logger: logger
        )
    }

    /// ``withPreparedDatabase(registry:logger:_:)`` on a server of its own, stopped afterwards: for a test of what
    /// depends on every transaction of the server (the settling horizon, `pg_snapshot_xmin`, is cluster-wide), which
    /// on the shared test server the other tests' transactions decide (the 47th session's CI run: a settle that
    /// took longer than the test's minute while the whole suite ran).
    static func withPreparedDatabaseOnOwnServer<T: Sendable>(
        registry: FunctionRegistry,
        logger: Logger,
        _ body: @Sendable (PostgresClient, PostgresClient.Configuration) async throws -> T
    ) async throws -> T {
        let server = try EmbeddedPostgres.startThrowaway(
            name: "ridesharing-own-pg", logger: Logger(label: "own-postgres") { _ in SwiftLogNoOpLogHandler() })
        defer { server.stop() }
        let configuration = server.clientConfiguration(database: "postgres")
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await Self.prepare(client, registry: registry, logger: logger)
            return try await body(client, configuration)
        }
    }

    /// Short leases and polls, so tests that rely on them stay quick.
    static func configuration(_ edit: (inout TriggerRuntime.Configuration) -> Void = { _ in })
        -> TriggerRuntime.Configuration
    {
        var configuration = TriggerRuntime.Configuration()
        configuration.pollInterval = .seconds(2)
        configuration.leaseDuration = .seconds(10)
        configuration.leaseRenewalInterval = .seconds(2)
        configuration.shutdownGracePeriod = .seconds(10)
        edit(&configuration)
        return configuration
    }

    /// Runs workers (one per configuration, each on `client`) during `body`, then shuts them down gracefully.
    static func withWorkers<T: Sendable>(
        client: PostgresClient,
        registry: FunctionRegistry,
        configurations: [TriggerRuntime.Configuration],
        logger: Logger,
        _ body: @Sendable () async throws -> T
    ) async throws -> T {
        let runtimes = configurations.map {
            TriggerRuntime(client: client, registry: registry, configuration: $0, logger: logger)
        }
        return try await ServiceGroup.withRunning(
            runtimes,
            logger: Logger(label: "service-group") { _ in SwiftLogNoOpLogHandler() },
            body
        )
    }

    /// Runs one worker during `body`.
    static func withWorker<T: Sendable>(
        client: PostgresClient,
        registry: FunctionRegistry,
        configuration: TriggerRuntime.Configuration = RuntimeHarness.configuration(),
        logger: Logger,
        _ body: @Sendable () async throws -> T
    ) async throws -> T {
        try await self.withWorkers(
            client: client, registry: registry, configurations: [configuration], logger: logger, body
        )
    }

    /// A single integer from a query.
    static func count(_ client: PostgresClient, _ query: PostgresQuery) async throws -> Int {
        let rows = try await client.query(query)
        for try await value in rows.decode(Int64.self) { return Int(value) }
        return 0
    }

    /// Rows of `deliveries` fetched through its indexes so far in the connection's transaction: how the claim-plan
    /// tests see a plan that reads the queue instead of a few rows of it.
    static func indexFetches(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            """
            SELECT coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables
            WHERE relid = 'trigger_runtime.deliveries'::regclass
            """,
            logger: logger
        )
        for try await value in rows.decode(Int64.self) { return value }
        return -1
    }
}
