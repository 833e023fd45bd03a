import Foundation
import NIOSSL
import PostgresNIO

/// How a client secures its database connection, in libpq's terms (`sslmode`, `sslrootcert`), so that a
/// `DATABASE_URL` that works with `psql` means the same here.
///
/// | mode | TLS | certificate checked |
/// |---|---|---|
/// | `disable` | never | — |
/// | `allow`, `prefer` | when the server offers it | only the chain, and only when a CA is given |
/// | `require` | always (a server without TLS is refused) | only the chain, and only when a CA is given |
/// | `verify-ca` | always | the chain, against the CA (required) |
/// | `verify-full` | always | the chain and the host name (required CA) |
///
/// `allow` behaves as `prefer`: libpq's `allow` tries a plain connection first and TLS after a refusal, which
/// postgres-nio cannot do; asking for TLS first still connects to every server `allow` connects to. A CA makes
/// `prefer` and `require` check the chain as libpq does when it finds a root certificate; unlike libpq, `prefer`
/// does not then fall back to a plain connection when the check fails (a failed check is an attack or a wrong CA,
/// and both should stop the connection).
public struct DatabaseTLS: Sendable, Hashable {
    /// libpq's `sslmode` values.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case disable
        case allow
        case prefer
        case require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// The `sslrootcert` value that means the system's trust store instead of a file.
    public static let systemTrustStore = "system"

    /// The mode.
    public var mode: Mode
    /// A PEM file of the CA certificates that sign the server's certificate, or ``systemTrustStore``.
    public var rootCertificate: String?
    /// Where ``mode`` came from, for errors ("sslmode in the database URL", "DATABASE_SSL_MODE").
    public var modeSource: String
    /// Where ``rootCertificate`` came from, for errors.
    public var rootCertificateSource: String

    /// Creates a TLS choice.
    /// - Parameters:
    ///   - mode: The mode; `prefer` is libpq's default.
    ///   - rootCertificate: The CA file, ``systemTrustStore`` or `nil`.
    ///   - modeSource: Where the mode came from, named by errors.
    ///   - rootCertificateSource: Where the CA came from, named by errors.
    public init(
        mode: Mode = .prefer,
        rootCertificate: String? = nil,
        modeSource: String = "sslmode",
        rootCertificateSource: String = "sslrootcert"
    ) {
        self.mode = mode
        self.rootCertificate = rootCertificate
        self.modeSource = modeSource
        self.rootCertificateSource = rootCertificateSource
    }

    /// The mode named `text`; throws `invalidTLS` naming `source` and the accepted words.
    public static func mode(named text: String, source: String) throws -> Mode {
        guard let mode = Mode(rawValue: text) else {
            let words = Mode.allCases.map(\.rawValue).joined(separator: ", ")
            throw EmbeddedPostgresError(.invalidTLS, "\(source) must be one of \(words), got \"\(text)\"")
        }
        return mode
    }

    /// The client's TLS. The CA file is read here, so a missing or unreadable one fails where the configuration is
    /// built (at start), not at the first connection.
    public func clientTLS() throws -> PostgresClient.Configuration.TLS {
        guard let (prefer, configuration) = try self.tlsConfiguration() else { return .disable }
        return prefer ? .prefer(configuration) : .require(configuration)
    }

    /// The same TLS for a single `PostgresConnection` (whose configuration takes a context, not a configuration).
    public func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        guard let (prefer, configuration) = try self.tlsConfiguration() else { return .disable }
        let context: NIOSSLContext
        do { context = try NIOSSLContext(configuration: configuration) } catch {
            throw EmbeddedPostgresError(.invalidTLS, "the database's TLS settings make no TLS context: \(error)")
        }
        return prefer ? .prefer(context) : .require(context)
    }

    /// Whether TLS is only preferred, and its configuration; `nil` when disabled.
    private func tlsConfiguration() throws -> (prefer: Bool, configuration: TLSConfiguration)? {
        if self.mode == .disable { return nil }
        let trustRoots = try self.trustRoots()
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = trustRoots
        switch self.mode {
        case .disable, .allow, .prefer, .require:
            configuration.certificateVerification = trustRoots == nil ? .none : .noHostnameVerification
        case .verifyCA, .verifyFull:
            guard trustRoots != nil else {
                throw EmbeddedPostgresError(
                    .invalidTLS,
                    "\(self.modeSource) is \(self.mode.rawValue), which verifies the server's certificate, but no CA "
                        + "is given: set \(self.rootCertificateSource) to a PEM file of the CA certificates (or "
                        + "\(Self.systemTrustStore) for the system's trust store)"
                )
            }
            configuration.certificateVerification =
                self.mode == .verifyFull ? .fullVerification : .noHostnameVerification
        }
        return (self.mode == .allow || self.mode == .prefer, configuration)
    }

    /// The CA certificates of ``rootCertificate``; `nil` when none is given.
    private func trustRoots() throws -> NIOSSLTrustRoots? {
        guard let path = self.rootCertificate else { return nil }
        if path == Self.systemTrustStore { return .default }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw EmbeddedPostgresError(
                .invalidTLS,
                "\(self.rootCertificateSource) \(path) cannot be read: \(error.localizedDescription)"
            )
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(data))
        } catch {
            throw EmbeddedPostgresError(
                .invalidTLS, "\(self.rootCertificateSource) \(path) is not a PEM certificate file: \(error)"
            )
        }
        guard !certificates.isEmpty else {
            throw EmbeddedPostgresError(
                .invalidTLS,
                "\(self.rootCertificateSource) \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
            )
        }
        return .certificates(certificates)
    }
}
