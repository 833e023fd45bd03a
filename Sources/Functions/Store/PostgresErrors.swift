import PostgresNIO

/// Reading PostgreSQL's errors where a store or the API turns one into a domain answer.
enum PostgresErrors {
    /// Whether `error` (or the error inside a failed transaction) is a unique violation (SQLSTATE 23505).
    static func isUniqueViolation(_ error: any Error) -> Bool {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] == "23505" }
        if let error = error as? PostgresTransactionError, let inner = error.closureError ?? error.commitError {
            return self.isUniqueViolation(inner)
        }
        return false
    }
}
