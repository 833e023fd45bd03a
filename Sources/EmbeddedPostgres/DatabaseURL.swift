import Foundation
import PostgresNIO

/// Parses `postgres://user[:password]@host[:port]/database` (also `postgresql://`) into a client configuration.
public enum DatabaseURL {
    /// The parsed parts of a database URL.
    public struct Parts: Sendable, Hashable {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
    }

    /// Parses `text`; throws `invalidURL` naming what is wrong.
    public static func parse(_ text: String) throws -> Parts {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw EmbeddedPostgresError(.invalidURL, "expected postgres://user:password@host:port/database, got \(redacted(text))")
        }
        guard let host = components.host, !host.isEmpty else {
            throw EmbeddedPostgresError(.invalidURL, "database URL has no host: \(redacted(text))")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw EmbeddedPostgresError(.invalidURL, "database URL names no database: \(redacted(text))")
        }
        return Parts(
            host: host,
            port: components.port ?? 5432,
            username: components.user ?? "postgres",
            password: components.password,
            database: database
        )
    }

    /// A client configuration for the URL. TLS is not negotiated: run the worker beside its database (same host
    /// or private network) or behind a TLS tunnel.
    public static func clientConfiguration(_ text: String) throws -> PostgresClient.Configuration {
        let parts = try parse(text)
        return PostgresClient.Configuration(
            host: parts.host,
            port: parts.port,
            username: parts.username,
            password: parts.password,
            database: parts.database,
            tls: .disable
        )
    }

    /// The URL with its password replaced by `***`, for logs and errors.
    public static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "<unparseable URL>"
    }
}
