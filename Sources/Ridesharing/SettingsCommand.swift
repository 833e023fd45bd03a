import ArgumentParser

/// `ridesharing settings`: every setting, as deploy/README.md's tables list it.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "List every setting: its variable, flag, settings-file key, default, values and meaning.",
        discussion: """
            Prints the Markdown tables of deploy/README.md's "Configuration" section (a test keeps the README equal to \
            this output). Flags win over the environment, the environment over the JSON file of --config-file or \
            CONFIG_FILE, the file over the defaults. Values are never printed.
            """
    )

    func run() {
        print(Setting.markdownTables)
    }
}
