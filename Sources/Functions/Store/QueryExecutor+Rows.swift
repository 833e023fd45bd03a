import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// The only places that consume a query's rows: every read of the stores goes through these, so a fix to how rows
/// are read (and how early a sequence may be abandoned) is made once. Each reads the sequence to its end.
extension QueryExecutor {
    /// Every row of `query`, each turned into a value by `transform`.
    func rows<T>(
        _ query: PostgresQuery,
        logger: Logger,
        _ transform: (PostgresRow) throws -> T
    ) async throws -> [T] {
        var values: [T] = []
        for try await row in try await self.execute(query, logger: logger) {
            values.append(try transform(row))
        }
        return values
    }

    /// Every row of a prepared statement, decoded by the statement.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws
        -> [Statement.Row]
    {
        var values: [Statement.Row] = []
        for try await row in try await self.run(statement, logger: logger) { values.append(row) }
        return values
    }

    /// Every row of a statement prepared once per connection (``Prepared``), each turned into a value by `transform`.
    func rows<Text: PreparedText, T>(
        _ statement: Prepared<Text>,
        logger: Logger,
        _ transform: (PostgresRow) throws -> T
    ) async throws -> [T] {
        var values: [T] = []
        for try await row in try await self.run(statement, logger: logger) {
            values.append(try transform(row))
        }
        return values
    }

    /// The first row of a prepared statement (which should return at most one), turned into a value by `transform`.
    func row<Text: PreparedText, T>(
        _ statement: Prepared<Text>,
        logger: Logger,
        _ transform: (PostgresRow) throws -> T
    ) async throws -> T? {
        try await self.rows(statement, logger: logger, transform).first
    }

    /// How many rows a prepared statement returned (see ``count(_:logger:)``).
    @discardableResult
    func count<Text: PreparedText>(_ statement: Prepared<Text>, logger: Logger) async throws -> Int {
        try await self.rows(statement, logger: logger) { _ in () }.count
    }

    /// The rows of a prepared statement that selects one JSON document per row, decoded as `T`.
    func documents<Text: PreparedText, T: Decodable>(
        _ statement: Prepared<Text>,
        as type: T.Type,
        logger: Logger
    ) async throws -> [T] {
        let decoder = JSONDecoder.rowDecoder()
        return try await self.rows(statement, logger: logger) { row in
            try decoder.decode(T.self, from: Data(try row.decode(String.self).utf8))
        }
    }

    /// The first row of `query` (which should return at most one), turned into a value by `transform`.
    func row<T>(_ query: PostgresQuery, logger: Logger, _ transform: (PostgresRow) throws -> T) async throws -> T? {
        try await self.rows(query, logger: logger, transform).first
    }

    /// How many rows `query` returned: for a write, how many rows its `RETURNING` reports it changed.
    @discardableResult
    func count(_ query: PostgresQuery, logger: Logger) async throws -> Int {
        try await self.rows(query, logger: logger) { _ in () }.count
    }

    /// The rows of a query that selects one JSON document per row (`to_jsonb(…)::text`), decoded as `T`.
    func documents<T: Decodable>(_ query: PostgresQuery, as type: T.Type, logger: Logger) async throws -> [T] {
        let decoder = JSONDecoder.rowDecoder()
        return try await self.rows(query, logger: logger) { row in
            try decoder.decode(T.self, from: Data(try row.decode(String.self).utf8))
        }
    }
}
