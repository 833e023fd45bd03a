import ArgumentParser
import Foundation
import Testing

@testable import Ridesharing

/// deploy/README.md's configuration tables, the deployment files and the code agree on every variable: the names,
/// their defaults and tables come from `ConfigurationVariables.all`, and the code reads exactly those.
@Suite("Deploy: the configuration variables in deploy/README.md match the code")
struct ConfigurationTableTests {
    /// A row of a README table, one per variable.
    struct Row: Hashable, CustomStringConvertible {
        var name: String
        var defaultValue: String?
        var group: String
        var description: String { "\(self.group): \(self.name) = \(self.defaultValue ?? "—")" }
    }

    /// The variables of the tables under `## Configuration`, with the `###` heading each is under.
    static func readmeRows() throws -> [Row] {
        let text = try String(
            contentsOf: ChildProcess.packageRoot.appendingPathComponent("deploy/README.md"), encoding: .utf8
        )
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "## Configuration") else {
            throw ChildProcess.Failure(description: "deploy/README.md has no ## Configuration section")
        }
        var rows: [Row] = []
        var group = ""
        for line in lines[(start + 1)...] {
            if line.hasPrefix("## ") { break }
            if line.hasPrefix("### ") { group = String(line.dropFirst(4)) }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let names = Self.backticked(cells[1])
            let defaults: [String?] =
                cells[2] == "—" ? names.map { _ in nil }
                : cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    .map { $0.replacingOccurrences(of: "`", with: "") }
            guard defaults.count == names.count || defaults.count == 1 else {
                throw ChildProcess.Failure(description: "row \(line): \(names.count) names, \(defaults.count) defaults")
            }
            for (index, name) in names.enumerated() {
                rows.append(Row(name: name, defaultValue: defaults.count == 1 ? defaults[0] : defaults[index], group: group))
            }
        }
        return rows
    }

    static func backticked(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    @Test("every README row is a variable of the code, with its default, in its table; none is missing")
    func readmeMatchesTheCode() throws {
        let readme = try Self.readmeRows()
        #expect(Set(readme.map(\.name)).count == readme.count, "a variable is listed twice")
        let documented = Set(readme.map { Row(name: $0.name, defaultValue: $0.defaultValue, group: Self.group(of: $0.group)) })
        let code = Set(ConfigurationVariables.all.map { Row(name: $0.name, defaultValue: $0.defaultValue, group: $0.group.rawValue) })
        #expect(documented.subtracting(code).isEmpty, "in the README but not the code: \(documented.subtracting(code))")
        #expect(code.subtracting(documented).isEmpty, "in the code but not the README: \(code.subtracting(documented))")
    }

    /// A heading such as "Worker (`serve`, `serve --worker-only`)" names the group "Worker".
    static func group(of heading: String) -> String {
        ConfigurationVariable.Group.allCases.map(\.rawValue).first { heading.hasPrefix($0) } ?? heading
    }

    @Test("the code reads exactly the listed variables (every branch: URL, parts, embedded, HyperTrack)")
    func codeReadsTheList() throws {
        let cases: [(flags: [String], environment: [String: String])] = [
            ([], [:]),
            ([], ["DATABASE_URL": "postgres://u@h/d"]),
            (["--embedded-postgres"], [:]),
            ([], ["HYPERTRACK_ACCOUNT_ID": "a", "HYPERTRACK_SECRET_KEY": "s"]),
        ]
        var read: Set<String> = []
        for (flags, environment) in cases {
            let reader = EnvironmentReader(environment)
            _ = try Configuration(global: try GlobalOptions.parse(flags), worker: try WorkerOptions.parse([]), environment: reader)
            _ = try BackendSettings(environment: reader, requireHyperTrack: false)
            read.formUnion(reader.read)
        }
        #expect(read == ConfigurationVariables.names, "never read: \(ConfigurationVariables.names.subtracting(read))")
    }

    @Test("the k8s ConfigMap, the systemd environment file and the compose file set only listed variables")
    func deploymentFilesUseListedVariables() throws {
        let root = ChildProcess.packageRoot.appendingPathComponent("deploy")
        var keys: [(String, String)] = []
        for line in try String(contentsOf: root.appendingPathComponent("systemd/ridesharing.env"), encoding: .utf8)
            .split(separator: "\n")
        {
            let entry = line.hasPrefix("#") ? line.dropFirst() : line[...]
            guard let equals = entry.firstIndex(of: "="), entry[..<equals].allSatisfy({ $0.isUppercase || $0 == "_" })
            else { continue }
            keys.append(("systemd/ridesharing.env", String(entry[..<equals])))
        }
        for (file, indent) in [("k8s/config.yaml", "  "), ("docker-compose.yml", "    ")] {
            var inside = false
            for line in try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8).split(separator: "\n") {
                if line == "data:" || line.hasSuffix("environment: &env") {
                    inside = true
                    continue
                }
                guard inside else { continue }
                guard line.hasPrefix(indent), !line.dropFirst(indent.count).hasPrefix(" ") else {
                    inside = false
                    continue
                }
                keys.append((file, String(line.dropFirst(indent.count).prefix { $0 != ":" })))
            }
        }
        #expect(keys.count > 20)
        for (file, key) in keys {
            #expect(ConfigurationVariables.names.contains(key), "\(file) sets \(key), which the executable does not read")
        }
    }
}
