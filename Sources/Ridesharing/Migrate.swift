import ArgumentParser
import BackendServer
import Foundation
import Functions
import Logging
import TriggerRuntime

/// `ridesharing migrate [--dry-run]`.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending migrations (runtime, then app) and install the functions' capture triggers.",
        discussion: "Runs under an advisory lock, in one transaction; refuses a database whose history diverges."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Only list pending migrations; change nothing. Exits 1 when some are pending.")
    var dryRun = false

    func run() async throws {
        let values = try await self.global.settings()
        let configuration = try Configuration(values, embeddedPostgres: self.global.embeddedPostgres)
        let settings = try BackendSettings(values, requireHyperTrack: false)
        Bootstrap.logging(configuration)
        let logger = configuration.logger()
        let pending = try await Self.migrate(
            configuration: configuration, settings: settings, dryRun: self.dryRun, logger: logger
        )
        if self.dryRun {
            print(pending.isEmpty ? "up to date" : "pending:")
            for migration in pending { print("  \(migration.group)/\(migration.name)") }
            if !pending.isEmpty { throw ExitCode(1) }
        } else {
            print(pending.isEmpty ? "up to date; triggers installed" : "applied \(pending.count); triggers installed")
        }
    }

    /// Migrates (or with `dryRun` reports) and installs triggers; returns the pending migrations found.
    static func migrate(
        configuration: Configuration, settings: BackendSettings, dryRun: Bool, logger: Logger
    ) async throws -> [Migration] {
        try await configuration.withClient(logger: logger) { client in
            let composition = BackendComposition(
                configuration: settings.composition(role: .all, runtime: configuration.runtime),
                client: client, logger: logger
            )
            let report = try await Migrator(client: client, logger: logger)
                .migrate(composition.requiredMigrations, dryRun: dryRun)
            if !dryRun {
                try await TriggerInstaller(client: client, logger: logger)
                    .install(Backend.bindings, channel: configuration.runtime.channel)
            }
            return report.pending
        }
    }
}
