import Logging
import PostgresNIO
import Synchronization

/// The simulation's own reads of the stack's database (progress, pending deliveries, the invariants): one
/// connection, opened again after it fails, every query bounded by a timeout that closes the connection.
///
/// Why not a `PostgresClient`: the chaos test hung once in four CI runs (10th session) with its progress loop
/// stopped for good after PostgreSQL's restart, 194 of 200 rides done, no thread busy and the test's time limit
/// passing without effect: an await that was never resumed. postgres-nio 1.33.2's pool without a minimum had been
/// seen (9th session) to make no further connection attempt after PostgreSQL answered 57P03 ("not yet accepting
/// connections") during its crash recovery, every lease then waiting for ever; the simulation's client was such a
/// pool. A single connection has no such state: a failed connect or a closed connection is an error the caller's
/// loop retries, and a query that does not answer within ``timeout`` is failed by closing its connection (the one
/// cancellation a query in flight cannot ignore). The simulation's reads are a few a second, one at a time.
public final class SimulationDatabase: Sendable {
    let configuration: PostgresConnection.Configuration
    let logger: Logger
    /// How long one query may take once connected (connecting is bounded by the connection's own connect timeout).
    /// The largest read (the arrival → `REACHED_*` join over a 12,000-ride run) takes about a second here.
    let timeout: Duration
    private let state = Mutex(State())
    private let ids = Atomic(0)

    private struct State {
        var connection: PostgresConnection?
        var closed = false
    }

    init(configuration: PostgresConnection.Configuration, logger: Logger, timeout: Duration) {
        self.configuration = configuration
        self.logger = logger
        self.timeout = timeout
    }

    /// Runs `body` with a database of `configuration`, closing its connection at the end.
    /// - Parameters:
    ///   - configuration: Where the stack's database is.
    ///   - logger: The logger.
    ///   - timeout: How long one query may take before its connection is closed.
    ///   - body: What uses the database.
    public static func with<Result: Sendable>(
        configuration: PostgresConnection.Configuration,
        logger: Logger,
        timeout: Duration = .seconds(30),
        _ body: (SimulationDatabase) async throws -> Result
    ) async throws -> Result {
        let database = SimulationDatabase(configuration: configuration, logger: logger, timeout: timeout)
        do {
            let result = try await body(database)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    /// The rows of `query`, all read. Throws when the database is away, the query fails or takes longer than
    /// `timeout` (``timeout`` unless given); the next call connects again where the connection is gone.
    @discardableResult
    func query(_ query: PostgresQuery, timeout: Duration? = nil) async throws -> [PostgresRow] {
        let connection = try await self.connection()
        let timeout = timeout ?? self.timeout
        let logger = self.logger
        do {
            return try await withThrowingTaskGroup(of: [PostgresRow]?.self) { group in
                group.addTask { try await connection.query(query, logger: logger).collect() }
                group.addTask {
                    // The timeout's clock.
                    try await Task.sleep(for: timeout)
                    return nil
                }
                guard let first = try await group.next(), let rows = first else {
                    // Closing fails the query in flight, so the group's wait for it ends (an error closing a
                    // connection that is being dropped says nothing the timeout does not).
                    self.forget(connection)
                    try? await connection.close()
                    group.cancelAll()
                    throw LocalStackError.timedOut("a query of the simulation's database took over \(timeout)")
                }
                group.cancelAll()
                return rows
            }
        } catch {
            if connection.isClosed { self.forget(connection) }
            throw error
        }
    }

    /// The open connection, or a new one.
    private func connection() async throws -> PostgresConnection {
        let open: PostgresConnection? = self.state.withLock { state in
            if let connection = state.connection, !connection.isClosed { return connection }
            state.connection = nil
            return nil
        }
        if let open { return open }
        let connection = try await PostgresConnection.connect(
            configuration: self.configuration,
            id: self.ids.add(1, ordering: .relaxed).newValue,
            logger: self.logger
        )
        // Two callers may both have connected: the first kept is used, the other closed.
        let (kept, spare): (PostgresConnection, PostgresConnection?) = self.state.withLock { state in
            if let other = state.connection, !other.isClosed { return (other, connection) }
            if state.closed { return (connection, connection) }
            state.connection = connection
            return (connection, nil)
        }
        if let spare { try? await spare.close() }
        guard kept !== spare else {
            throw LocalStackError.timedOut("the simulation's database was closed while connecting")
        }
        return kept
    }

    private func forget(_ connection: PostgresConnection) {
        self.state.withLock { state in
            if state.connection === connection { state.connection = nil }
        }
    }

    private func close() async {
        let connection = self.state.withLock { state in
            state.closed = true
            defer { state.connection = nil }
            return state.connection
        }
        try? await connection?.close()
    }
}
