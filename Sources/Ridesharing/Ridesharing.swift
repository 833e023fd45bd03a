import ArgumentParser

/// The `ridesharing` executable: parses arguments and hands over to `Configuration` and `Composition`.
@main
struct Ridesharing: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ridesharing",
        abstract: "The ridesharing backend: migrations, the trigger worker and HTTP API, and the delivery admin.",
        discussion: """
            Database: DATABASE_URL (postgres://user:password@host:port/database), or POSTGRES_HOST (127.0.0.1), \
            POSTGRES_PORT (5432), POSTGRES_USER (postgres), POSTGRES_PASSWORD, POSTGRES_DB (postgres), \
            DATABASE_MAX_CONNECTIONS (20). Logging: LOG_LEVEL (trace, debug, info, notice, warning, error, critical; \
            default info). Flags win over the environment.
            """,
        subcommands: [Local.self, Demo.self, FunctionsCommand.self, Migrate.self, Serve.self, Events.self]
    )
}
