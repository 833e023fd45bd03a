import EmbeddedPostgres

extension Setting {
    /// Where more settings come from.
    static let configFile = Setting(
        "config.file", "CONFIG_FILE", flag: "config-file", group: .general,
        "A JSON settings file, keys as in the tables' \"File key\" column.",
        detail: "Read from the flag and the environment only. Flags win over the environment, the environment over "
            + "the file, the file over the defaults."
    )

    static let general: [Setting] = [.configFile]

    static let databaseURL = Setting(
        "database.url", "DATABASE_URL", flag: "database-url", secret: true, group: .databaseAndLogging,
        "`postgres://user:password@host:port/database`, optionally `?sslmode=…&sslrootcert=…`.",
        detail: "When set, the `POSTGRES_*` variables are ignored. Its `sslmode` and `sslrootcert` (libpq's names) "
            + "win over `DATABASE_SSL_MODE` and `DATABASE_SSL_ROOT_CERT`; any other parameter is refused."
    )
    static let postgresHost = Setting(
        "postgres.host", "POSTGRES_HOST", default: .value("127.0.0.1"), group: .databaseAndLogging,
        "Used when `DATABASE_URL` is unset."
    )
    static let postgresPort = Setting(
        "postgres.port", "POSTGRES_PORT", default: .value("5432"), .integer(1...65535), group: .databaseAndLogging,
        "Used when `DATABASE_URL` is unset."
    )
    static let postgresUser = Setting(
        "postgres.user", "POSTGRES_USER", default: .value("postgres"), group: .databaseAndLogging,
        "Used when `DATABASE_URL` is unset."
    )
    static let postgresPassword = Setting(
        "postgres.password", "POSTGRES_PASSWORD", secret: true, group: .databaseAndLogging,
        "Used when `DATABASE_URL` is unset."
    )
    static let postgresDatabase = Setting(
        "postgres.db", "POSTGRES_DB", default: .value("postgres"), group: .databaseAndLogging,
        "Used when `DATABASE_URL` is unset."
    )
    static let databaseSSLMode = Setting(
        "database.sslMode", "DATABASE_SSL_MODE", default: .value("prefer"),
        .choice(DatabaseTLS.Mode.allCases.map(\.rawValue)), group: .databaseAndLogging,
        "TLS to the database, as libpq's `sslmode`; `sslmode` in `DATABASE_URL` wins.",
        detail: "`prefer` (libpq's default, so a URL that works with `psql` works here) encrypts when the server "
            + "offers TLS; `require` refuses a server without it; neither checks the certificate unless a CA is "
            + "given. `verify-ca` checks it against `DATABASE_SSL_ROOT_CERT`, `verify-full` also the host name "
            + "(use it against a managed PostgreSQL). `allow` is `prefer`; `disable` never asks for TLS."
    )
    static let databaseSSLRootCert = Setting(
        "database.sslRootCert", "DATABASE_SSL_ROOT_CERT", group: .databaseAndLogging,
        "PEM file of the CA certificates that sign the database's certificate, or `system` for the system's store; "
            + "`sslrootcert` in `DATABASE_URL` wins.",
        detail: "Read at start: a missing file or one without a certificate stops the process. Required by "
            + "`verify-ca` and `verify-full`; with `prefer` or `require` the chain is then checked too (as libpq does)."
    )
    static let databaseMaxConnections = Setting(
        "database.maxConnections", "DATABASE_MAX_CONNECTIONS", default: .value("20"), .integer(2...1000),
        group: .databaseAndLogging, "Pool size of one process.", detail: "Must be above `WORKER_CONCURRENCY`."
    )
    static let embeddedPostgresData = Setting(
        "embeddedPostgres.data", "EMBEDDED_POSTGRES_DATA", default: .value(".local/pg"), group: .databaseAndLogging,
        "Data folder of `--embedded-postgres` (development only)."
    )
    static let logLevel = Setting(
        "log.level", "LOG_LEVEL", flag: "log-level", default: .value("info"),
        .choice(["trace", "debug", "info", "notice", "warning", "error", "critical"]), group: .databaseAndLogging,
        "Log level."
    )
    static let logFormat = Setting(
        "log.format", "LOG_FORMAT", flag: "log-format", default: .value("text"), .choice(["text", "json"]),
        group: .databaseAndLogging, "Log format: text, or json (one object per line).",
        detail: "A JSON line on stderr has `timestamp`, `level`, `label`, `message`, `source`, `metadata`."
    )

    static let databaseAndLogging: [Setting] = [
        .databaseURL, .postgresHost, .postgresPort, .postgresUser, .postgresPassword, .postgresDatabase,
        .databaseSSLMode, .databaseSSLRootCert, .databaseMaxConnections, .embeddedPostgresData, .logLevel, .logFormat,
    ]
}
