import Logging
import PostgresNIO

extension PostgresClient {
    /// `withConnection`, except that a connection that failed at the connection level (the server closed it, the
    /// socket broke, a FATAL error) is closed, and the lease ends only once the pool knows it is closed.
    ///
    /// Why: postgres-nio 1.33 marks a released connection available at once, even when its close is still under
    /// way; the next caller may then write a query to it after its channel handler is gone, and that query is
    /// never answered (a cancellation-deaf await). This was seen as a test hang right after
    /// `pg_terminate_backend` killed the LISTEN connection: the next INSERT from the same pool never returned.
    /// - Parameters:
    ///   - closeOnAnyError: Close on every error the body throws, not only connection-level ones (the LISTEN
    ///     connection is useless after any error).
    ///   - body: Uses the leased connection.
    package func withConnectionClosedOnFailure<Result: Sendable>(
        closeOnAnyError: Bool = false,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await self.withConnection { connection in
            do {
                return try await body(connection)
            } catch {
                if closeOnAnyError || connection.isClosed || Self.isConnectionLevel(error) {
                    await connection.closeAndWait()
                }
                throw error
            }
        }
    }

    /// `withTransaction` on a connection leased through `withConnectionClosedOnFailure`.
    package func withTransactionClosedOnFailure<Result: Sendable>(
        logger: Logger,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await self.withConnectionClosedOnFailure { connection in
            try await connection.withTransaction(logger: logger) { try await body($0) }
        }
    }

    /// Whether `error` leaves its connection unusable. A `PostgresTransactionError` (what `withTransaction` throws,
    /// wrapping the error of its BEGIN, body, ROLLBACK or COMMIT) is judged by the errors it wraps.
    package static func isConnectionLevel(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            return [transaction.beginError, transaction.closureError, transaction.rollbackError, transaction.commitError]
                .contains { $0.map(Self.isConnectionLevel) ?? false }
        }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .server:
            let severity = error.serverInfo?[.severity] ?? ""
            return severity == "FATAL" || severity == "PANIC"
        case .queryCancelled, .tooManyParameters, .invalidCommandTag, .listenFailed, .unlistenFailed, .poolClosed:
            return false
        default:
            return true
        }
    }
}

extension PostgresConnection {
    /// Closes the connection if it is still open and returns once its close has completed (and so once the pool
    /// that owns it has been told, since the pool's close callback was registered first).
    package func closeAndWait() async {
        if !self.isClosed { try? await self.close() }
        try? await self.closeFuture.get()
    }
}
