import ArgumentParser
import Configuration
import Foundation
import Testing

@testable import Ridesharing

/// deploy/README.md's configuration tables, the deployment files and the code agree on every setting: the tables
/// are `Setting.markdownTables` (written from the declarations), the code reads exactly the declared settings, and
/// swift-configuration finds each setting under the variable the declaration names.
@Suite("Deploy: the configuration settings in deploy/README.md match the code")
struct ConfigurationTableTests {
    /// The tables of the README's "## Configuration" section: from its first `###` heading to the next `##`.
    static func readmeTables() throws -> String {
        let text = try String(
            contentsOf: ChildProcess.packageRoot.appendingPathComponent("deploy/README.md"), encoding: .utf8
        )
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let section = lines.firstIndex(of: "## Configuration"),
            let start = lines[section...].firstIndex(where: { $0.hasPrefix("### ") })
        else {
            throw ChildProcess.Failure(description: "deploy/README.md has no ## Configuration section with tables")
        }
        let end = lines[start...].firstIndex(where: { $0.hasPrefix("## ") }) ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("the README's tables are the declarations' tables (`ridesharing settings` prints them)")
    func readmeMatchesTheDeclarations() throws {
        let expected = Setting.markdownTables
        #expect(try Self.readmeTables() == expected, "replace the tables in deploy/README.md with:\n\(expected)")
        #expect(Setting.environmentNames.count == Setting.all.count, "a variable is declared twice")
        #expect(Set(Setting.all.map(\.key)).count == Setting.all.count, "a key is declared twice")
    }

    @Test("swift-configuration reads each setting from the variable its declaration names")
    func environmentNamesFollowTheKeys() {
        for setting in Setting.all {
            let reader = ConfigReader(
                provider: EnvironmentVariablesProvider(environmentVariables: [setting.environmentName: "x"])
            )
            #expect(reader.string(forKey: ConfigKey(setting.key)) == "x", "\(setting.key) is not \(setting)")
        }
    }

    @Test("the code reads exactly the declared settings (every branch: URL, parts, embedded, HyperTrack)")
    func codeReadsTheList() async throws {
        let cases: [(flags: [String], environment: [String: String])] = [
            ([], [:]),
            ([], ["DATABASE_URL": "postgres://u@h/d"]),
            (["--embedded-postgres"], [:]),
            ([], ["HYPERTRACK_ACCOUNT_ID": "a", "HYPERTRACK_SECRET_KEY": "s"]),
        ]
        var read: Set<String> = []
        for (flags, environment) in cases {
            let global = try GlobalOptions.parse(flags)
            let settings = try await SettingsReader.load(flags: global.flagValues, environment: environment)
            _ = try Configuration(settings, embeddedPostgres: global.embeddedPostgres)
            _ = try BackendSettings(settings, requireHyperTrack: false)
            read.formUnion(settings.keysRead)
        }
        let declared = Set(Setting.all.map(\.key))
        #expect(read == declared, "unread: \(declared.subtracting(read)); undeclared: \(read.subtracting(declared))")
    }

    @Test("the systemd environment file shows every worker setting that has a plain default, commented out with it")
    func systemdEnvironmentShowsWorkerDefaults() throws {
        let file = ChildProcess.packageRoot.appendingPathComponent("deploy/systemd/ridesharing.env")
        var shown: [String: String] = [:]
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") where line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = String(line[line.index(after: line.startIndex)..<equals])
            guard Setting.environmentNames.contains(name) else { continue }
            shown[name] = String(line[line.index(after: equals)...])
        }
        for setting in Setting.all {
            guard let value = setting.defaultText, let text = shown[setting.environmentName] else {
                #expect(
                    setting.group != .worker || setting.defaultText == nil,
                    "\(setting.environmentName) (default \(setting.defaultText ?? "-")) is not shown"
                )
                continue
            }
            #expect(text == value, "\(setting.environmentName) shown as \(text), its default is \(value)")
        }
        #expect(shown.count >= 15)
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
            #expect(Setting.environmentNames.contains(key), "\(file) sets \(key), which the executable does not read")
        }
    }
}
