import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// Operators' API keys: created by `ridesharing operators create NAME` (the key is printed once and stored as
/// SHA-256), listed, and revoked by name; they authenticate the operational routes (`/v1/ops/…`).
public struct OperatorStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store.
    /// - Parameters:
    ///   - client: A running client.
    ///   - logger: The queries' logger.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// An operator as `operators list` shows them (never their key).
    public struct Operator: Sendable, Hashable {
        /// The name given at creation.
        public var name: String
        /// When the key was created.
        public var createdAt: Date
        /// When it was revoked; `nil` while it works.
        public var revokedAt: Date?
    }

    /// Whether `name` is a valid operator name: lowercase letters, digits, `.`, `_`, `-`, at most 63.
    public static func isValid(name: String) -> Bool {
        name.range(of: #"^[a-z0-9][a-z0-9._-]{0,62}$"#, options: .regularExpression) != nil
    }

    /// Creates an operator (or gives a revoked name a new key) and returns the key, shown only here; `nil` when an
    /// operator of that name has a working key.
    public func create(name: String) async throws -> String? {
        let key = Tokens.make(prefix: "rs_op_")
        let created = try await self.client.row(
            """
            INSERT INTO operators (name, key_hash) VALUES (\(name), \(Tokens.hash(key)))
            ON CONFLICT (name) DO UPDATE SET key_hash = EXCLUDED.key_hash, created_at = now(), revoked_at = NULL
            WHERE operators.revoked_at IS NOT NULL
            RETURNING name
            """,
            logger: self.logger
        ) { try $0.decode(String.self) }
        return created == nil ? nil : key
    }

    /// Every operator, by name.
    public func list() async throws -> [Operator] {
        try await self.client.rows(
            "SELECT name, created_at, revoked_at FROM operators ORDER BY name",
            logger: self.logger
        ) { row in
            let (name, created, revoked) = try row.decode((String, Date, Date?).self)
            return Operator(name: name, createdAt: created, revokedAt: revoked)
        }
    }

    /// Revokes an operator's key at once; `false` when no operator of that name has a working key.
    public func revoke(name: String) async throws -> Bool {
        try await self.client.count(
            "UPDATE operators SET revoked_at = now() WHERE name = \(name) AND revoked_at IS NULL RETURNING name",
            logger: self.logger
        ) == 1
    }

    /// The operator whose working key hashes to `keyHash`.
    func operatorName(keyHash: String) async throws -> String? {
        try await self.client.row(
            "SELECT name FROM operators WHERE key_hash = \(keyHash) AND revoked_at IS NULL",
            logger: self.logger
        ) { try $0.decode(String.self) }
    }
}
