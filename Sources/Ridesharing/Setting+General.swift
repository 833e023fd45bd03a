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
        "`postgres://user:password@host:port/database`.", detail: "When set, the `POSTGRES_*` variables are ignored."
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
        .databaseMaxConnections, .embeddedPostgresData, .logLevel, .logFormat,
    ]
}
