import ArgumentParser

/// What operators read about the settings: `--help` and the tables of deploy/README.md, both written from the
/// declarations so they cannot drift from the code.
extension Setting {
    /// A flag's help: the summary, what values it takes, its variable and its default (never a secret's).
    var flagHelp: ArgumentHelp {
        let facts = [self.values, "env: \(self.environmentName)", self.defaultHelp].compactMap { $0 }
        let summary = self.summary.hasSuffix(".") ? String(self.summary.dropLast()) : self.summary
        return ArgumentHelp("\(summary) (\(facts.joined(separator: "; "))).")
    }

    /// The flag's name for ArgumentParser (only settings that declare a flag have one).
    var flagName: NameSpecification {
        guard let flag = self.flag else { preconditionFailure("\(self) has no flag") }
        return .customLong(flag)
    }

    /// The values a setting takes, as its parser checks them; `nil` for free text.
    var values: String? {
        switch self.kind {
        case .text: nil
        case .integer(let range): "\(range.lowerBound)...\(range.upperBound)"
        case .boolean: "true or false"
        case .choice(let words): words.joined(separator: ", ")
        }
    }

    private var defaultHelp: String? {
        switch self.defaultValue {
        case .none: nil
        case .value(let text), .computed(let text): self.isSecret ? nil : "default \(text)"
        }
    }

    /// `NAME (default X), …` of a group's variables, for a command's discussion.
    static func environmentHelp(_ group: Group) -> String {
        Self.all.filter { $0.group == group }
            .map { setting in
                setting.defaultHelp.map { "\(setting.environmentName) (\($0))" } ?? setting.environmentName
            }
            .joined(separator: ", ")
    }

    /// The tables of deploy/README.md's "Configuration" section, one per group under its `###` heading.
    static var markdownTables: String {
        Group.allCases.map { group in
            let rows = Self.all.filter { $0.group == group }.map(\.markdownRow)
            return (["### \(group.heading)", "", Self.markdownHeader, "|---|---|---|---|---|---|"] + rows)
                .joined(separator: "\n")
        }
        .joined(separator: "\n\n")
    }

    static let markdownHeader = "| Variable | Flag | File key | Default | Values | Meaning |"

    /// One row of a README table.
    var markdownRow: String {
        let defaultCell =
            switch self.defaultValue {
            case .none: "—"
            case .value(let text): "`\(text)`"
            case .computed(let text): text
            }
        let cells = [
            "`\(self.environmentName)`", self.flag.map { "`--\($0)`" } ?? "—",
            self.fileKey.map { "`\($0)`" } ?? "—",
            defaultCell, self.values ?? "", ([self.summary] + (self.detail.map { [$0] } ?? [])).joined(separator: " "),
        ]
        return "| " + cells.joined(separator: " | ") + " |"
    }
}
