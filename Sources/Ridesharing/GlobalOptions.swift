import ArgumentParser
import Configuration
import Foundation

/// Options every subcommand takes: where the database is, how much to log and the settings file. Their names and
/// help come from the ``Setting`` declarations; ``flagValues`` hands what was given to ``SettingsReader``.
struct GlobalOptions: ParsableArguments {
    @Option(name: Setting.databaseURL.flagName, help: Setting.databaseURL.flagHelp)
    var databaseURL: String?

    @Option(name: Setting.logLevel.flagName, help: Setting.logLevel.flagHelp)
    var logLevel: String?

    @Option(name: Setting.logFormat.flagName, help: Setting.logFormat.flagHelp)
    var logFormat: String?

    @Option(name: Setting.configFile.flagName, help: Setting.configFile.flagHelp)
    var configFile: String?

    @Flag(help: "Use a PostgreSQL started by this process in .local/pg (created on first run) instead of DATABASE_URL.")
    var embeddedPostgres = false

    /// The settings given as flags.
    var flagValues: [Setting: ConfigContent] {
        var values: [Setting: ConfigContent] = [:]
        values[.databaseURL] = self.databaseURL.map(ConfigContent.string)
        values[.logLevel] = self.logLevel.map(ConfigContent.string)
        values[.logFormat] = self.logFormat.map(ConfigContent.string)
        values[.configFile] = self.configFile.map(ConfigContent.string)
        return values
    }

    /// The settings of the process: these flags and `worker`'s, the environment, the settings file, the defaults.
    /// - Parameter worker: The worker flags, when the command has them.
    func settings(worker: WorkerOptions? = nil) async throws -> SettingsReader {
        try await SettingsReader.load(
            flags: self.flagValues.merging(worker?.flagValues ?? [:]) { global, _ in global },
            environment: ProcessInfo.processInfo.environment
        )
    }
}
