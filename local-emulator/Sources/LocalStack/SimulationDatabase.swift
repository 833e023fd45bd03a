import Logging
import PostgresNIO
import Synchronization
import TriggerRuntime

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
///
/// The chaos test still hung after that change (11th session, and the CI run after it): its stack alive and idle
/// for half an hour, all 200 orders `COMPLETED` within 90 s of PostgreSQL's restart, the workers' kills going on
/// until the test's time limit, so the progress loop never saw the end. Its only waits were this type's queries
/// and a sleep, and the time limit's cancellation did not end them: the query's task group waited for a child that
/// never ended. Now the whole query, the connect included, is abandoned at the timeout instead of awaited.
public final class SimulationDatabase: Sendable {
    let configuration: PostgresConnection.Configuration
    let logger: Logger
    /// How long one query may take, connecting included.
    /// The largest read (the arrival → `REACHED_*` join over a 12,000-ride run) takes about a second here.
    let timeout: Duration
    private let state = Mutex(State())
    private let ids = Atomic(0)
    /// The queries in flight (for a stuck run's report).
    public let activity = SimulationActivity()

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
    /// `timeout` (``timeout`` unless given; connecting included); the next call connects again where the
    /// connection is gone.
    ///
    /// The wait is bounded even should postgres-nio never complete a future: the connect and the query run in a
    /// task this call abandons at the timeout (``abandoning(after:timedOut:_:)``), and the connection is then closed
    /// without waiting for the close either. (A task group would wait for its children.)
    @discardableResult
    func query(_ query: PostgresQuery, timeout: Duration? = nil) async throws -> [PostgresRow] {
        let timeout = timeout ?? self.timeout
        let logger = self.logger
        return try await self.activity.during("a database query") {
            try await abandoning(
                after: timeout,
                timedOut: {
                    // Called once, at the timeout only (not for a timed-out error from inside the body).
                    self.dropConnection()
                    return LocalStackError.timedOut("a query of the simulation's database took over \(timeout)")
                }
            ) {
                let connection = try await self.connection()
                do {
                    return try await connection.query(query, logger: logger).collect()
                } catch {
                    if connection.isClosed { self.forget(connection) }
                    throw error
                }
            }
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

    /// Forgets the connection in use and closes it in the background: closing fails a query in flight, and the
    /// close is not awaited (it is one of the waits that must not stop the run).
    private func dropConnection() {
        let connection = self.state.withLock { state in
            defer { state.connection = nil }
            return state.connection
        }
        guard let connection else { return }
        // Nothing to report: the connection is being dropped because its query did not answer.
        Task { try? await connection.close() }
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
        guard let connection else { return }
        // Awaited (a test drops its database next, which an open session would block) but bounded: a close that
        // never completes must not stop the caller's teardown. Nothing to report either way.
        _ = try? await abandoning(
            after: .seconds(10),
            timedOut: { LocalStackError.timedOut("closing the simulation's database connection") }
        ) {
            try await connection.close()
        }
    }
}
