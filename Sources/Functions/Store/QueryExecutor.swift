import Logging
import PostgresNIO

/// Whatever runs a query for a ``PostgresRideStore``: a pooled `PostgresClient` (the API: each statement on any
/// connection of the pool) or a `PostgresConnection` (a function: the delivery's open transaction, so the
/// function's writes commit together with its delivery).
///
/// postgres-nio has no protocol common to the two, and the store of order operations must run on either, so this
/// tiny one is ours. Reads go through the helpers in `QueryExecutor+Rows.swift` only, so a change to how rows are
/// consumed lands in one place.
public protocol QueryExecutor: Sendable {
    /// Runs one statement and returns its rows.
    /// - Parameters:
    ///   - query: The statement, with its bind parameters.
    ///   - logger: The caller's logger.
    func execute(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence

    /// Runs a statement prepared once per connection (see ``PreparedStatements``) and returns its decoded rows.
    func run<Statement: PostgresPreparedStatement>(
        _ statement: Statement,
        logger: Logger
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Statement.Row>
}

extension PostgresClient: QueryExecutor {
    public func execute(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try await self.query(query, logger: logger)
    }

    public func run<Statement: PostgresPreparedStatement>(
        _ statement: Statement,
        logger: Logger
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Statement.Row> {
        try await self.execute(statement, logger: logger)
    }
}

extension PostgresConnection: QueryExecutor {
    public func execute(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try await self.query(query, logger: logger)
    }

    public func run<Statement: PostgresPreparedStatement>(
        _ statement: Statement,
        logger: Logger
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Statement.Row> {
        try await self.execute(statement, logger: logger)
    }
}
