import ArgumentParser

/// The `ridesharing` executable: parses arguments and hands over to `Configuration` and `Composition`.
@main
struct Ridesharing: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ridesharing",
        abstract: "The ridesharing backend: migrations, the trigger worker and HTTP API, and the delivery admin.",
        discussion: """
            Database and logging: \(Setting.environmentHelp(.databaseAndLogging)). DATABASE_URL is \
            postgres://user:password@host:port/database[?sslmode=MODE&sslrootcert=CA.pem]; when it is set, \
            POSTGRES_* are ignored. LOG_LEVEL is one of \
            trace, debug, info, notice, warning, error, critical. Flags win over the environment, the environment \
            over the JSON file of --config-file or CONFIG_FILE, the file over the defaults. `ridesharing settings` \
            lists every setting.
            """,
        subcommands: [
            Local.self, Demo.self, Simulate.self, FunctionsCommand.self, Migrate.self, Serve.self, Events.self, Operators.self,
            SettingsCommand.self,
        ]
    )
}
