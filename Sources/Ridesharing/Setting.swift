/// One configuration setting of the `ridesharing` executable, declared once: its names in every source, its
/// default, how its text is parsed and what it means.
///
/// The values (``SettingsReader``), the flags' `--help`, `ridesharing settings` and the tables of deploy/README.md
/// (compared by `Tests/DeployTests/ConfigurationTableTests`) all come from these declarations, so a name or a
/// default can no longer differ between them. The declarations themselves are in `Setting+General.swift` (the
/// settings file, database and logging), `Setting+Worker.swift` and `Setting+Backend.swift`; ``all`` lists them in
/// table order.
struct Setting: Sendable, Hashable, CustomStringConvertible {
    /// Which table of deploy/README.md lists a setting.
    enum Group: String, Sendable, CaseIterable {
        case general = "General"
        case databaseAndLogging = "Database and logging"
        case worker = "Worker"
        case backend = "Backend"

        /// The `###` heading of the group's table in deploy/README.md: the name, then who reads it.
        var heading: String {
            switch self {
            case .general: "General (every subcommand)"
            case .databaseAndLogging: "Database and logging (every subcommand)"
            case .worker: "Worker (`serve`, `serve --worker-only`)"
            case .backend: "Backend (`serve`, all roles)"
            }
        }
    }

    /// How a value's text is parsed, and so what the error of a bad value says.
    enum Kind: Sendable, Hashable {
        /// Any text.
        case text
        /// An integer in the range.
        case integer(ClosedRange<Int>)
        /// `true` or `false` (swift-configuration also takes `yes`/`no`/`1`/`0` from the environment).
        case boolean
        /// One of the words, compared without case; the value is the lowercased word.
        case choice([String])

        /// What a value must be, for error messages: "an integer in 1...1000", "text or json".
        var requirement: String {
            switch self {
            case .text: "text"
            case .integer(let range): "an integer in \(range.lowerBound)...\(range.upperBound)"
            case .boolean: "true or false"
            case .choice(let words) where words.count == 2: "\(words[0]) or \(words[1])"
            case .choice(let words): "one of \(words.joined(separator: ", "))"
            }
        }
    }

    /// The default, as the code applies it and the README shows it.
    enum Default: Sendable, Hashable {
        /// Unset unless configured.
        case none
        /// This text, parsed like a configured value.
        case value(String)
        /// Worked out by the code when unset (e.g. from another setting); the text describes how.
        case computed(String)
    }

    /// The key in the settings file: dotted, e.g. `worker.concurrency` is `{"worker": {"concurrency": 16}}`.
    /// swift-configuration's environment provider derives the variable's name from it (`worker.claimIntervalMs` is
    /// `WORKER_CLAIM_INTERVAL_MS`); a test checks that it derives ``environmentName``.
    var key: String
    /// The environment variable, spelled out so the name operators know is searchable here.
    var environmentName: String
    /// The long flag without its dashes, for the settings that have one.
    var flag: String?
    var defaultValue: Default
    var kind: Kind
    /// Never printed, logged or shown as a default (swift-configuration redacts it in its own output too).
    var isSecret: Bool
    var group: Group
    /// One line for `--help` and the README.
    var summary: String
    /// What the README adds to the summary: the reasoning and the numbers behind the default.
    var detail: String?

    init(
        _ key: String, _ environmentName: String, flag: String? = nil, default defaultValue: Default = .none,
        _ kind: Kind = .text, secret: Bool = false, group: Group, _ summary: String, detail: String? = nil
    ) {
        self.key = key
        self.environmentName = environmentName
        self.flag = flag
        self.defaultValue = defaultValue
        self.kind = kind
        self.isSecret = secret
        self.group = group
        self.summary = summary
        self.detail = detail
    }

    var description: String { self.environmentName }

    /// The default's text when it is a plain value.
    var defaultText: String? {
        if case .value(let text) = self.defaultValue { text } else { nil }
    }

    /// The key in the settings file; `nil` for `CONFIG_FILE`, which names the file.
    var fileKey: String? { self == .configFile ? nil : self.key }

    /// Every setting, in the order of the README's tables.
    static let all: [Setting] = Self.general + Self.databaseAndLogging + Self.worker + Self.backend

    /// The environment variables of ``all``.
    static let environmentNames = Set(Self.all.map(\.environmentName))
}
