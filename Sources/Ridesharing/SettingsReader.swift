import Configuration
import Foundation
import SystemPackage

/// The values of the declared settings, read through swift-configuration from, in this order: the flags, the
/// environment, the optional JSON settings file (`--config-file` / `CONFIG_FILE`), then each setting's default.
///
/// Every value, its default included, goes through the setting's ``Setting/Kind``, so a bad value stops the
/// process at start with a message naming the variable, wherever the value came from. Variables are trimmed and an
/// empty one counts as unset, for every setting alike.
struct SettingsReader: Sendable {
    private let reader: ConfigReader
    private let recorder = SettingsAccessRecorder()
    /// The trimmed environment, to quote a bad value back to the operator (never a secret's).
    private let environment: [String: String]
    private let file: String?

    /// Creates a reader over flags, the environment and an already loaded file.
    /// - Parameters:
    ///   - flags: The values given as flags (they win over everything).
    ///   - environment: The process's environment, or a test's.
    ///   - file: The settings file's provider, and its path for error messages.
    init(
        flags: [Setting: ConfigContent] = [:], environment: [String: String], file: (any ConfigProvider, String)? = nil
    ) {
        var trimmed: [String: String] = [:]
        for (name, value) in environment {
            let value = value.trimmingCharacters(in: .whitespacesAndNewlines)
            if !value.isEmpty { trimmed[name] = value }
        }
        self.environment = trimmed
        self.file = file?.1
        let secrets = Set(Setting.all.filter(\.isSecret).map(\.environmentName))
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (setting, content) in flags {
            values[AbsoluteConfigKey(ConfigKey(setting.key))] = ConfigValue(content, isSecret: setting.isSecret)
        }
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: values),
            EnvironmentVariablesProvider(environmentVariables: trimmed, secretsSpecifier: .specific(secrets)),
        ]
        if let file { providers.append(file.0) }
        self.reader = ConfigReader(providers: providers, accessReporter: self.recorder)
    }

    /// Reads `CONFIG_FILE` from the flags and the environment, loads that file when one is named, and returns the
    /// reader over all three.
    /// - Parameters:
    ///   - flags: The values given as flags.
    ///   - environment: The process's environment.
    static func load(flags: [Setting: ConfigContent], environment: [String: String]) async throws -> SettingsReader {
        let withoutFile = SettingsReader(flags: flags, environment: environment)
        guard let path = try withoutFile.optionalString(.configFile) else { return withoutFile }
        let provider: FileProvider<JSONSnapshot>
        do {
            provider = try await FileProvider<JSONSnapshot>(filePath: FilePath(path))
        } catch {
            throw Configuration.Invalid(description: "CONFIG_FILE \(path) cannot be read as JSON settings: \(error)")
        }
        return SettingsReader(flags: flags, environment: environment, file: (provider, path))
    }

    /// The keys read so far (``Setting/key``), for the test that the code reads every declared setting.
    var keysRead: Set<String> { self.recorder.keys }

    /// A text setting's value or default.
    func string(_ setting: Setting) throws -> String {
        guard let value = try self.optionalString(setting) else { preconditionFailure("\(setting) has no default") }
        return value
    }

    /// A text setting's value, or its default; `nil` when neither is set (or the default is computed by the caller).
    func optionalString(_ setting: Setting) throws -> String? {
        precondition(setting.kind == .text, "\(setting) is not text")
        return try self.read(setting) { $0.string(forKey: $1, isSecret: $2) } ?? setting.defaultText
    }

    /// An integer setting's value or default, checked against its range.
    func integer(_ setting: Setting) throws -> Int {
        guard case .integer(let range) = setting.kind, let fallback = setting.defaultText.flatMap({ Int($0) }) else {
            preconditionFailure("\(setting) is not an integer with a default")
        }
        let value = try self.read(setting) { $0.int(forKey: $1, isSecret: $2) } ?? fallback
        guard range.contains(value) else { throw self.invalid(setting, got: "\(value)") }
        return value
    }

    /// A boolean setting's value or default.
    func boolean(_ setting: Setting) throws -> Bool {
        guard setting.kind == .boolean, let fallback = setting.defaultText.flatMap({ Bool($0) }) else {
            preconditionFailure("\(setting) is not a boolean with a default")
        }
        return try self.read(setting) { $0.bool(forKey: $1, isSecret: $2) } ?? fallback
    }

    /// A choice setting's value or default, lowercased.
    func choice(_ setting: Setting) throws -> String {
        guard case .choice(let words) = setting.kind, let fallback = setting.defaultText else {
            preconditionFailure("\(setting) is not a choice with a default")
        }
        let value = (try self.read(setting) { $0.string(forKey: $1, isSecret: $2) } ?? fallback).lowercased()
        guard words.contains(value) else { throw self.invalid(setting, got: "\"\(value)\"") }
        return value
    }

    /// Reads the configured value; a value some source has but that does not parse is an error, never the default.
    private func read<Value>(
        _ setting: Setting, _ get: (ConfigReader, ConfigKey, Bool) -> Value?
    ) throws -> Value? {
        if let value = get(self.reader, ConfigKey(setting.key), setting.isSecret) { return value }
        guard let failure = self.recorder.failure(of: setting.key) else { return nil }
        // Flags are typed by ArgumentParser, so a value that does not convert is the environment's or the file's.
        if let text = self.environment[setting.environmentName] {
            if setting.isSecret { throw self.invalid(setting, "; its value is not (not shown: a secret)") }
            throw self.invalid(setting, got: "\"\(text)\"")
        }
        throw self.invalid(setting, "; \(setting.key) in \(self.file ?? "the settings file") is not (\(failure))")
    }

    private func invalid(_ setting: Setting, got value: String) -> Configuration.Invalid {
        self.invalid(setting, ", got \(value)")
    }

    private func invalid(_ setting: Setting, _ rest: String) -> Configuration.Invalid {
        Configuration.Invalid(description: "\(setting.environmentName) must be \(setting.kind.requirement)\(rest)")
    }
}
