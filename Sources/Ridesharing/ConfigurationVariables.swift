import Foundation

/// One environment variable of the `ridesharing` executable.
struct ConfigurationVariable: Sendable, Hashable {
    /// Which table of deploy/README.md lists it.
    enum Group: String, Sendable, CaseIterable {
        case databaseAndLogging = "Database and logging"
        case worker = "Worker"
        case backend = "Backend"
    }

    var name: String
    /// The default as deploy/README.md shows it; `nil` when there is none.
    var defaultValue: String?
    var group: Group
}

/// Every variable the executable reads: the single list `--help`, deploy/README.md's tables (compared by
/// `Tests/DeployTests/ConfigurationTableTests`) and ``EnvironmentReader`` (which refuses to read any other) agree on.
enum ConfigurationVariables {
    static let all: [ConfigurationVariable] = [
        .init(name: "DATABASE_URL", defaultValue: nil, group: .databaseAndLogging),
        .init(name: "POSTGRES_HOST", defaultValue: "127.0.0.1", group: .databaseAndLogging),
        .init(name: "POSTGRES_PORT", defaultValue: "5432", group: .databaseAndLogging),
        .init(name: "POSTGRES_USER", defaultValue: "postgres", group: .databaseAndLogging),
        .init(name: "POSTGRES_PASSWORD", defaultValue: nil, group: .databaseAndLogging),
        .init(name: "POSTGRES_DB", defaultValue: "postgres", group: .databaseAndLogging),
        .init(name: "DATABASE_MAX_CONNECTIONS", defaultValue: "20", group: .databaseAndLogging),
        .init(name: "EMBEDDED_POSTGRES_DATA", defaultValue: ".local/pg", group: .databaseAndLogging),
        .init(name: "LOG_LEVEL", defaultValue: "info", group: .databaseAndLogging),
        .init(name: "LOG_FORMAT", defaultValue: "text", group: .databaseAndLogging),
        .init(name: "WORKER_CONCURRENCY", defaultValue: "8", group: .worker),
        .init(name: "WORKER_BATCH_SIZE", defaultValue: "64", group: .worker),
        .init(name: "WORKER_TRANSACTION_BATCH_SIZE", defaultValue: "32", group: .worker),
        .init(name: "WORKER_SYNCHRONOUS_COMPLETION", defaultValue: "true", group: .worker),
        .init(name: "WORKER_CLAIM_INTERVAL_MS", defaultValue: "10", group: .worker),
        .init(name: "WORKER_POLL_INTERVAL_MS", defaultValue: "1000", group: .worker),
        .init(name: "WORKER_LEASE_SECONDS", defaultValue: "30", group: .worker),
        .init(name: "WORKER_SHUTDOWN_GRACE_SECONDS", defaultValue: "20", group: .worker),
        .init(name: "WORKER_RETENTION_HOURS", defaultValue: "168", group: .worker),
        .init(name: "WORKER_DEAD_RETENTION_HOURS", defaultValue: "720", group: .worker),
        .init(name: "WORKER_LISTEN", defaultValue: "true", group: .worker),
        .init(name: "WORKER_CHANNEL", defaultValue: "trigger_runtime", group: .worker),
        .init(name: "WORKER_ID", defaultValue: "host-pid-random", group: .worker),
        .init(name: "HYPERTRACK_ACCOUNT_ID", defaultValue: nil, group: .backend),
        .init(name: "HYPERTRACK_SECRET_KEY", defaultValue: nil, group: .backend),
        .init(name: "HYPERTRACK_BASE_URL", defaultValue: "https://v3.api.hypertrack.com", group: .backend),
        .init(name: "HYPERTRACK_WEBHOOK_SECRET", defaultValue: "the secret key", group: .backend),
        .init(name: "HYPERTRACK_ACCEPT_UNSIGNED_WEBHOOKS", defaultValue: "false", group: .backend),
        .init(name: "HTTP_HOST", defaultValue: "127.0.0.1", group: .backend),
        .init(name: "HTTP_PORT", defaultValue: "8080", group: .backend),
        .init(name: "TRIP_DESTINATION_RADIUS_M", defaultValue: "100", group: .backend),
        .init(name: "DISPATCH_RADIUS_M", defaultValue: "5000", group: .backend),
        .init(name: "DISPATCH_OFFER_COUNT", defaultValue: "5", group: .backend),
        .init(name: "DISPATCH_USE_NEARBY_API", defaultValue: "false", group: .backend),
        .init(name: "TARIFF_CURRENCY", defaultValue: "EUR", group: .backend),
        .init(name: "TARIFF_BASE", defaultValue: "250", group: .backend),
        .init(name: "TARIFF_PER_KM", defaultValue: "120", group: .backend),
        .init(name: "TARIFF_PER_MINUTE", defaultValue: "30", group: .backend),
        .init(name: "TARIFF_MINIMUM", defaultValue: "500", group: .backend),
    ]

    static let names = Set(Self.all.map(\.name))

    /// `NAME (default X), …` of a group, for `--help`.
    static func help(_ group: ConfigurationVariable.Group) -> String {
        Self.all.filter { $0.group == group }
            .map { variable in variable.defaultValue.map { "\(variable.name) (default \($0))" } ?? variable.name }
            .joined(separator: ", ")
    }
}

/// The environment as the configuration reads it. Only declared variables can be read (reading another is a
/// programming error), and every read is recorded, so a test can compare what the code reads with the list.
final class EnvironmentReader: @unchecked Sendable {
    private let values: [String: String]
    private let lock = NSLock()
    private var names: Set<String> = []

    init(_ values: [String: String]) {
        self.values = values
    }

    /// The raw value of `name` (a declared variable).
    subscript(name: String) -> String? {
        precondition(ConfigurationVariables.names.contains(name), "\(name) is not in ConfigurationVariables.all")
        self.lock.withLock { _ = self.names.insert(name) }
        return self.values[name]
    }

    /// The variables read so far.
    var read: Set<String> { self.lock.withLock { self.names } }
}
