import Foundation
import PostgresNIO

/// Parses `postgres://user[:password]@host[:port]/database[?sslmode=MODE&sslrootcert=PATH]` (also
/// `postgresql://`) into a client configuration.
///
/// The two query parameters are libpq's (see ``DatabaseTLS``); any other parameter is refused rather than ignored,
/// so that a misspelt `sslmode` cannot quietly leave the connection less protected than asked.
public enum DatabaseURL {
    /// The parsed parts of a database URL.
    public struct Parts: Sendable, Hashable {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        /// `sslmode`, when the URL has one.
        public var sslMode: DatabaseTLS.Mode?
        /// `sslrootcert`, when the URL has one.
        public var sslRootCertificate: String?

        /// `defaults` with what the URL sets replacing it (as libpq's URL parameters beat `PGSSLMODE`).
        public func tls(over defaults: DatabaseTLS) -> DatabaseTLS {
            var tls = defaults
            if let mode = self.sslMode {
                tls.mode = mode
                tls.modeSource = "sslmode in the database URL"
            }
            if let path = self.sslRootCertificate {
                tls.rootCertificate = path
                tls.rootCertificateSource = "sslrootcert in the database URL"
            }
            return tls
        }
    }

    /// The query parameters a URL may have.
    public static let parameters = ["sslmode", "sslrootcert"]

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
        var parts = Parts(
            host: host,
            port: components.port ?? 5432,
            username: components.user ?? "postgres",
            password: components.password,
            database: database
        )
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                parts.sslMode = try DatabaseTLS.mode(named: value, source: "sslmode in the database URL")
            case "sslrootcert" where !value.isEmpty:
                parts.sslRootCertificate = value
            case "sslrootcert":
                throw EmbeddedPostgresError(.invalidTLS, "sslrootcert in the database URL is empty: give a PEM file's path")
            default:
                throw EmbeddedPostgresError(
                    .invalidURL,
                    "the database URL's parameter \"\(item.name)\" is not supported (supported: "
                        + "\(Self.parameters.joined(separator: ", ")))"
                )
            }
        }
        return parts
    }

    /// A client configuration for the URL: its TLS is `defaults` with the URL's `sslmode` and `sslrootcert`
    /// replacing them. Throws `invalidURL` or `invalidTLS` (a bad mode, a CA file that cannot be read).
    /// - Parameters:
    ///   - text: The URL.
    ///   - defaults: The TLS when the URL says nothing (`DATABASE_SSL_MODE`, `DATABASE_SSL_ROOT_CERT`); libpq's
    ///     `prefer` unless given.
    public static func clientConfiguration(
        _ text: String, defaults: DatabaseTLS = DatabaseTLS()
    ) throws -> PostgresClient.Configuration {
        let parts = try parse(text)
        return PostgresClient.Configuration(
            host: parts.host,
            port: parts.port,
            username: parts.username,
            password: parts.password,
            database: parts.database,
            tls: try parts.tls(over: defaults).clientTLS()
        )
    }

    /// The same as ``clientConfiguration(_:defaults:)`` for a single `PostgresConnection`.
    public static func connectionConfiguration(
        _ text: String, defaults: DatabaseTLS = DatabaseTLS()
    ) throws -> PostgresConnection.Configuration {
        let parts = try parse(text)
        return PostgresConnection.Configuration(
            host: parts.host,
            port: parts.port,
            username: parts.username,
            password: parts.password,
            database: parts.database,
            tls: try parts.tls(over: defaults).connectionTLS()
        )
    }

    /// The URL with its password replaced by `***`, for logs and errors.
    public static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "<unparseable URL>"
    }
}
