import ArgumentParser
import Foundation
import LocalStack
import Testing

@testable import Ridesharing

/// Bad role flags and bad settings are refused at start with a message naming them; nothing runs. The help the
/// binary prints is the declarations'.
@Suite("Deploy: serve's roles and logging settings on the command line")
struct CommandLineTests {
    /// Runs the binary to completion; returns (status, standard error).
    static func run(_ arguments: [String], environment: [String: String]) async throws -> (Int32, String) {
        let process = try ChildProcess("ridesharing", arguments, environment: environment, name: "ridesharing")
        let status = try await process.exitStatus()
        _ = try? await process.line(where: { _ in false }, "end of output")
        return (status, process.output.joined(separator: "\n"))
    }

    @Test("simulate --api-nice takes a negative value as the option's, and refuses one outside -20...19")
    func simulateAPINice() throws {
        let options = try SimulateChaosOptions.parse(["--own-stack", "--api-nice", "-10", "--workers", "1"])
        #expect(try options.stack.apiNiceness == -10)
        #expect(try options.stack.workers == 1)
        #expect(try SimulateChaosOptions.parse(["--own-stack"]).stack.apiNiceness == 0)
        #expect(throws: (any Error).self) { try SimulateChaosOptions.parse(["--own-stack", "--api-nice", "25"]) }
    }

    @Test("simulate refuses the own stack's flags against a running stack, naming them, instead of ignoring them")
    func simulateOwnStackFlags() throws {
        for flags in [
            ["--workers", "1"], ["--api-nice", "5"], ["--tick-interval", "5"], ["--report-every", "5"],
            ["--webhook-batch", "100"], ["--webhook-concurrency", "2"], ["--setting", "WORKER_CONCURRENCY=16"],
            ["--stack-directory", "/tmp/x"],
        ] {
            do {
                _ = try SimulateChaosOptions.parse(flags)
                Issue.record("\(flags) was taken without --own-stack")
            } catch {
                let message = SimulateChaosOptions.message(for: error)
                #expect(message.contains(flags[0]) && message.contains("--own-stack"), "\(message)")
            }
            _ = try SimulateChaosOptions.parse(flags + ["--own-stack"])
        }
        // Two named together; a chaos flag implies the own stack.
        let error = try #require(throws: (any Error).self) {
            try SimulateChaosOptions.parse(["--workers", "3", "--api-nice", "1"])
        }
        let message = SimulateChaosOptions.message(for: error)
        #expect(message.contains("--workers, --api-nice set up the own stack"), "\(message)")
        #expect(try SimulateChaosOptions.parse(["--chaos", "--workers", "3"]).stack.workers == 3)
        #expect(try SimulateChaosOptions.parse([]).ownStackFlagsGiven.isEmpty)
    }

    @Test("simulate's own-stack options default to SimulationStack's configuration, and their help says the same")
    func simulateOwnStackDefaults() throws {
        let stack = try SimulateChaosOptions.parse(["--own-stack"]).stack
        let defaults = SimulationStack.Configuration()
        #expect(stack.workers == defaults.workers)
        #expect(stack.emulatorTickInterval == defaults.emulatorTickInterval)
        #expect(stack.webhookBatchSize == defaults.webhookBatchSize)
        #expect(stack.webhookConcurrency == defaults.webhookConcurrency)
        #expect(stack.apiNiceness == defaults.apiNiceness)
        #expect(stack.settings == defaults.settings)
        let help = SimulateChaosOptions.helpMessage(columns: 1000)
        for (flag, value) in [
            ("--workers", "\(defaults.workers)"), ("--tick-interval", "\(Int(defaults.emulatorTickInterval))"),
            ("--webhook-batch", "\(defaults.webhookBatchSize)"),
            ("--webhook-concurrency", "\(defaults.webhookConcurrency)"), ("--api-nice", "\(defaults.apiNiceness)"),
        ] {
            // The flag's entry: its line and the ones its text wraps onto, up to the next flag's.
            let entry = help.components(separatedBy: "\n  -").first { $0.hasPrefix(flag.dropFirst() + " <") }
            #expect(entry?.contains("default: \(value))") == true, "\(flag): \(entry ?? "no help entry")")
        }
    }

    @Test("--worker-only and --api-only together are refused")
    func exclusiveRoles() async throws {
        let (status, output) = try await Self.run(["serve", "--worker-only", "--api-only"], environment: [:])
        #expect(status != 0)
        #expect(output.contains("--worker-only and --api-only exclude each other"))
    }

    @Test("LOG_FORMAT other than text or json is refused, naming the variable")
    func badLogFormat() async throws {
        let (status, output) = try await Self.run(
            ["serve", "--worker-only"],
            environment: ["LOG_FORMAT": "xml", "DATABASE_URL": "postgres://u@127.0.0.1:1/d",
                          "HYPERTRACK_ACCOUNT_ID": "a", "HYPERTRACK_SECRET_KEY": "b"]
        )
        #expect(status != 0)
        #expect(output.contains("LOG_FORMAT must be text or json"))
    }

    @Test("the worker role requires HyperTrack credentials and says which variables to set")
    func workerNeedsHyperTrack() async throws {
        let (status, output) = try await Self.run(
            ["serve", "--worker-only"],
            environment: ["DATABASE_URL": "postgres://u@127.0.0.1:1/d", "HYPERTRACK_ACCOUNT_ID": "", "HYPERTRACK_SECRET_KEY": ""]
        )
        #expect(status != 0)
        #expect(output.contains("HYPERTRACK"))
    }

    @Test("a bad value in the settings file of --config-file is refused, naming the variable")
    func badValueInTheSettingsFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: path) }
        try Data(#"{"log": {"format": "xml"}}"#.utf8).write(to: path)
        let (status, output) = try await Self.run(
            ["serve", "--worker-only", "--config-file", path.path],
            environment: ["DATABASE_URL": "postgres://u@127.0.0.1:1/d", "HYPERTRACK_ACCOUNT_ID": "a",
                          "HYPERTRACK_SECRET_KEY": "b"]
        )
        #expect(status != 0)
        #expect(output.contains("LOG_FORMAT must be text or json"))
    }

    @Test("serve --help shows every worker flag with its variable, from the declarations")
    func help() {
        let output = Ridesharing.helpMessage(for: Serve.self, columns: 10_000)
        let text = output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for setting in Setting.worker + [.databaseURL, .logLevel, .logFormat, .configFile] {
            #expect(text.contains("--\(setting.flag ?? "")"), "\(setting)")
            #expect(text.contains("env: \(setting.environmentName)"), "\(setting)")
        }
        #expect(text.contains("(1...1000; env: WORKER_CONCURRENCY; default 8)"))
    }
}
