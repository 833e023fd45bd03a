import ArgumentParser
import Configuration
import Foundation
import Functions
import HyperTrackAPI
import Logging
import Testing
import TriggerRuntime

@testable import Ridesharing

/// Where a value comes from (flags, then the environment, then the settings file, then the default) and what a bad
/// value says: the reading every subcommand shares, without starting a process.
@Suite("Deploy: settings from flags, environment, file and defaults")
struct SettingsReaderTests {
    static let file = InMemoryProvider(
        name: "file", values: ["worker.concurrency": 3, "worker.batchSize": 7, "worker.leaseSeconds": 9]
    )

    @Test("flags win over the environment, the environment over the file, the file over the default")
    func precedence() throws {
        let settings = SettingsReader(
            flags: [.workerConcurrency: .int(2)],
            environment: [
                "WORKER_CONCURRENCY": "4", "WORKER_BATCH_SIZE": "5", "WORKER_TRANSACTION_WINDOW_MS": "0",
            ],
            file: (Self.file, "test.json")
        )
        let runtime = try Configuration(settings).runtime
        #expect(runtime.concurrency == 2)
        #expect(runtime.batchSize == 5)
        #expect(runtime.transactionWindow == .zero)
        #expect(runtime.leaseDuration == .seconds(9))
        #expect(runtime.pollInterval == .milliseconds(1000))
    }

    @Test("a JSON file named by CONFIG_FILE is read with nested keys; a file that is not JSON is refused")
    func jsonFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: path) }
        try Data(#"{"worker": {"concurrency": 6}, "tariff": {"currency": "USD"}}"#.utf8).write(to: path)
        let settings = try await SettingsReader.load(flags: [:], environment: ["CONFIG_FILE": path.path])
        #expect(try Configuration(settings).runtime.concurrency == 6)
        #expect(try BackendSettings(settings, requireHyperTrack: false).backend.tariff.currency == "USD")

        try Data("WORKER_CONCURRENCY=6".utf8).write(to: path)
        let error = await #expect(throws: Configuration.Invalid.self) {
            _ = try await SettingsReader.load(flags: [.configFile: .string(path.path)], environment: [:])
        }
        #expect(error?.description.hasPrefix("CONFIG_FILE \(path.path)") == true)
    }

    @Test("a bad value names its variable, wherever it came from; it never falls back to the default")
    func badValues() throws {
        let cases: [([String: String], String)] = [
            (["WORKER_CONCURRENCY": "many"], #"WORKER_CONCURRENCY must be an integer in 1...1000, got "many""#),
            (["WORKER_CONCURRENCY": "0"], "WORKER_CONCURRENCY must be an integer in 1...1000, got 0"),
            (["WORKER_LISTEN": "maybe"], #"WORKER_LISTEN must be true or false, got "maybe""#),
            (["LOG_LEVEL": "loud"], "LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical"),
            (["POSTGRES_PORT": "99999"], "POSTGRES_PORT must be an integer in 1...65535, got 99999"),
        ]
        for (environment, message) in cases {
            let error = #expect(throws: Configuration.Invalid.self) {
                _ = try Configuration(SettingsReader(environment: environment))
            }
            #expect(error?.description.hasPrefix(message) == true, "\(error?.description ?? "no error")")
        }
        let file = InMemoryProvider(name: "file", values: ["dispatch.offerCount": "five"])
        let error = #expect(throws: Configuration.Invalid.self) {
            _ = try BackendSettings(SettingsReader(environment: [:], file: (file, "s.json")), requireHyperTrack: false)
        }
        let expected = "DISPATCH_OFFER_COUNT must be an integer in 1...100; dispatch.offerCount in s.json is not"
        #expect(error?.description.hasPrefix(expected) == true, "\(error?.description ?? "no error")")
    }

    @Test("variables are trimmed and an empty one is unset, for every setting alike")
    func emptyAndBlank() throws {
        let settings = SettingsReader(environment: ["WORKER_CONCURRENCY": " 5\n", "LOG_LEVEL": "", "HTTP_HOST": "  "])
        let configuration = try Configuration(settings)
        #expect(configuration.runtime.concurrency == 5)
        #expect(configuration.logLevel == .info)
        #expect(try BackendSettings(settings, requireHyperTrack: false).httpHost == "127.0.0.1")
    }

    @Test("the HyperTrack client's configuration: credentials, the production URL by default, the missing one named")
    func hyperTrack() throws {
        let local = try BackendSettings(
            SettingsReader(environment: [
                "HYPERTRACK_BASE_URL": "http://127.0.0.1:4010", "HYPERTRACK_ACCOUNT_ID": "acc",
                "HYPERTRACK_SECRET_KEY": "sk",
            ]),
            requireHyperTrack: true
        )
        #expect(local.hyperTrack?.baseURL == "http://127.0.0.1:4010")
        #expect(local.hyperTrack?.accountID == "acc")
        #expect(local.hyperTrack?.secretKey == "sk")
        #expect(local.backend.webhook.secret == nil, "the signature check is off unless a key is configured")
        let signed = try BackendSettings(
            SettingsReader(environment: [
                "HYPERTRACK_WEBHOOK_SECRET": "whsec", "HYPERTRACK_WEBHOOK_PATH_SECRETS": " new , old ,",
            ]),
            requireHyperTrack: false
        )
        #expect(signed.backend.webhook.secret == "whsec")
        #expect(signed.backend.webhook.pathSecrets == ["new", "old"])
        let production = try BackendSettings(
            SettingsReader(environment: ["HYPERTRACK_ACCOUNT_ID": "a", "HYPERTRACK_SECRET_KEY": "s"]),
            requireHyperTrack: false
        )
        #expect(production.hyperTrack?.baseURL == "https://v3.api.hypertrack.com")
        #expect(try BackendSettings(SettingsReader(environment: [:]), requireHyperTrack: false).hyperTrack == nil)

        let missingSecret = #expect(throws: Configuration.Invalid.self) {
            try BackendSettings(
                SettingsReader(environment: ["HYPERTRACK_ACCOUNT_ID": "a", "HYPERTRACK_SECRET_KEY": " "]),
                requireHyperTrack: false
            )
        }
        #expect(missingSecret?.description.hasPrefix("HYPERTRACK_SECRET_KEY is not set") == true)
        let missingAccount = #expect(throws: Configuration.Invalid.self) {
            try BackendSettings(SettingsReader(environment: [:]), requireHyperTrack: true)
        }
        #expect(missingAccount?.description.hasPrefix("HYPERTRACK_ACCOUNT_ID is not set") == true)
    }

    @Test("the declared defaults are the libraries' own defaults, so an unset setting changes nothing")
    func defaultsAreTheLibraries() throws {
        let settings = SettingsReader(environment: ["HYPERTRACK_ACCOUNT_ID": "a", "HYPERTRACK_SECRET_KEY": "s"])
        let (runtime, library) = (try Configuration(settings).runtime, TriggerRuntime.Configuration())
        #expect(runtime.concurrency == library.concurrency)
        #expect(runtime.batchSize == library.batchSize)
        #expect(runtime.transactionBatchSize == library.transactionBatchSize)
        #expect(runtime.transactionWindow == library.transactionWindow)
        #expect(runtime.synchronousCompletion == library.synchronousCompletion)
        #expect(runtime.claimInterval == library.claimInterval)
        #expect(runtime.pollInterval == library.pollInterval)
        #expect(runtime.leaseDuration == library.leaseDuration)
        #expect(runtime.shutdownGracePeriod == library.shutdownGracePeriod)
        #expect(runtime.retention == library.retention)
        #expect(runtime.deadRetention == library.deadRetention)
        #expect(runtime.listen == library.listen)
        #expect(runtime.channel == library.channel)
        let backend = try BackendSettings(settings, requireHyperTrack: false)
        let defaults = Functions.Backend.Configuration()
        #expect(backend.hyperTrack?.baseURL == HyperTrackClient.Configuration.defaultBaseURL)
        #expect(backend.backend.destinationRadius == defaults.destinationRadius)
        #expect(backend.backend.dispatch.radius == defaults.dispatch.radius)
        #expect(backend.backend.dispatch.offerCount == defaults.dispatch.offerCount)
        #expect(backend.backend.dispatch.useNearbyAPI == defaults.dispatch.useNearbyAPI)
        #expect(backend.backend.webhook.acceptUnsigned == defaults.webhook.acceptUnsigned)
        let (tariff, libraryTariff) = (backend.backend.tariff, Tariff())
        #expect(tariff.currency == libraryTariff.currency)
        #expect(tariff.base == libraryTariff.base)
        #expect(tariff.perKilometre == libraryTariff.perKilometre)
        #expect(tariff.perMinute == libraryTariff.perMinute)
        #expect(tariff.minimum == libraryTariff.minimum)
    }

    @Test("secrets never show a default in --help")
    func secrets() {
        for setting in Setting.all where setting.isSecret {
            #expect(!setting.flagHelp.abstract.contains("default"), "\(setting)")
        }
        #expect(Setting.all.filter(\.isSecret).map(\.environmentName).sorted() == [
            "AUTH_CODE_WEBHOOK_SECRET", "DATABASE_URL", "HYPERTRACK_SECRET_KEY", "HYPERTRACK_WEBHOOK_PATH_SECRETS", "HYPERTRACK_WEBHOOK_SECRET",
            "POSTGRES_PASSWORD",
        ])
    }
}
