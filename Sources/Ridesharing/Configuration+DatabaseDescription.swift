import EmbeddedPostgres

extension Configuration.Database {
    /// Nothing was configured: the `POSTGRES_*` defaults (127.0.0.1:5432, user and database `postgres`, no
    /// password), which on a laptop usually mean "no database" rather than a server someone chose.
    var isUnconfigured: Bool {
        guard case .parts(let host, let port, let user, let password, let database) = self else { return false }
        return host == Setting.postgresHost.defaultText && "\(port)" == Setting.postgresPort.defaultText
            && user == Setting.postgresUser.defaultText && password == nil
            && database == Setting.postgresDatabase.defaultText
    }

    /// The database without its password, for messages.
    var redacted: String {
        switch self {
        case .url(let url): DatabaseURL.redacted(url)
        case .parts(let host, let port, let user, _, let database): "postgres://\(user)@\(host):\(port)/\(database)"
        case .embedded(let directory): "the embedded PostgreSQL in \(directory)"
        }
    }
}
