import ArgumentParser
import AsyncHTTPClient
import BackendServer
import EmbeddedPostgres
import Foundation
import Functions
import HyperTrackAPI
import HyperTrackEmulator
import LocalStack
import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime

/// `ridesharing functions …`: the functions shell.
struct FunctionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "functions",
        abstract: "The functions shell: list the registered functions, or fire one with a payload.",
        subcommands: [FunctionsCall.self, FunctionsList.self]
    )
}

/// `ridesharing functions list`.
struct FunctionsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the registered functions.")

    func run() async throws {
        for function in Backend.bindings {
            switch function.kind {
            case .rows(let trigger):
                let operations = trigger.operations.map(\.rawValue).sorted().joined(separator: "/")
                print("\(function.name)\t\(operations) of \(trigger.table)\(trigger.columns.map { " (\($0.joined(separator: ", ")))" } ?? "")\(trigger.filter.map { " where \($0)" } ?? "")")
            case .timer:
                print("\(function.name)\ttimers")
            case .schedule(let schedule):
                print("\(function.name)\t\(schedule)")
            }
        }
    }
}

/// `ridesharing functions call NAME --data FILE.json`.
struct FunctionsCall: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Fire a registered function with a functions:shell-style payload and print its logs, outcome and changes.",
        discussion: """
            The payload is {"before": {...}, "after": {...}} for an update (a null or missing side makes it a create \
            or a delete), or the bare document for a function on create or delete. It runs in one transaction: \
            committed when the function succeeds (the worker then runs whatever its writes triggered), rolled back \
            when it throws. Against the running `ridesharing local` (found through <data>/stack.json) unless \
            --database-url is given; with neither, against a throwaway database and emulator.
            """
    )

    @Argument(help: "The function's name (see `ridesharing functions list`).")
    var name: String

    @Option(help: "The payload file (JSON).")
    var data: String

    @Option(help: "create or delete: the operation of a bare document, when the function fires on both.")
    var operation: ChangeOperation?

    @Option(name: .customLong("database-url"), help: "postgres://user:password@host:port/database[?sslmode=MODE&sslrootcert=CA.pem].")
    var databaseURL: String?

    @Option(name: .customLong("local-data"), help: "The local stack's data folder.")
    var localData = ".local"

    func run() async throws {
        var logger = Logger(label: "ridesharing.functions")
        logger.logLevel = .warning
        let payload: Data
        do { payload = try Data(contentsOf: URL(fileURLWithPath: self.data)) } catch {
            throw ValidationError("cannot read \(self.data): \(error.localizedDescription)")
        }
        let running = try? JSONDecoder().decode(
            LocalStack.Endpoints.self,
            from: Data(contentsOf: URL(fileURLWithPath: LocalData.endpointsFile(self.localData)))
        )
        let databaseURL = self.databaseURL ?? running?.databaseURL
        let outcome: FunctionsShell.Outcome
        if let running, let databaseURL {
            print("against the running local stack (\(DatabaseURL.redacted(databaseURL)), HyperTrack \(running.emulatorURL))")
            var configuration = HyperTrackClient.Configuration(
                baseURL: running.emulatorURL, accountID: running.accountID, secretKey: running.secretKey
            )
            configuration.nearbyPollInterval = .milliseconds(200)
            let client = try HyperTrackClient(configuration: configuration, httpClient: .shared, logger: logger)
            let tracking = HyperTrackTripTracking(client: client, logger: logger)
            outcome = try await self.call(payload, databaseURL: databaseURL, tracking: tracking, prepare: false, logger: logger)
        } else {
            outcome = try await self.callThrowaway(payload, databaseURL: databaseURL, logger: logger)
        }
        print(outcome.report)
        if !outcome.succeeded { throw ExitCode(2) }
    }

    func call(
        _ payload: Data, databaseURL: String, tracking: some TripTracking, prepare: Bool, logger: Logger
    ) async throws -> FunctionsShell.Outcome {
        let client = PostgresClient(configuration: try DatabaseURL.clientConfiguration(databaseURL), backgroundLogger: logger)
        let composition = BackendComposition(configuration: .init(), client: client, logger: logger)
        let registry = composition.registry(tracking: tracking)
        guard let function = registry.function(named: FunctionName(self.name)) else {
            let names = registry.functions.map(\.name.description).joined(separator: ", ")
            throw ValidationError("no function named \(self.name); registered: \(names)")
        }
        let invocation: FunctionsShell.Invocation
        do { invocation = try FunctionsShell.parse(payload, for: function, operation: self.operation) } catch {
            throw ValidationError("\(error)")
        }
        return try await ServiceGroup.withRunning([client], logger: logger) {
            if prepare { try await composition.prepare() }
            return try await FunctionsShell.call(function, with: invocation, client: client, logger: logger)
        }
    }

    /// A throwaway emulator (no webhooks), and a throwaway database unless `databaseURL` is given.
    func callThrowaway(_ payload: Data, databaseURL: String?, logger: Logger) async throws -> FunctionsShell.Outcome {
        print(databaseURL == nil ? "against a throwaway database and HyperTrack emulator" : "against \(DatabaseURL.redacted(databaseURL!)) and a throwaway HyperTrack emulator")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ridesharing-shell-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await LocalData.withDatabase(url: databaseURL, embeddedIn: directory, maximumConnections: 4, logger: logger) {
            _, url in
            var emulatorConfiguration = HyperTrackEmulator.Configuration()
            emulatorConfiguration.clock = .manual()
            let emulator = try HyperTrackEmulator(configuration: emulatorConfiguration, logger: logger)
            return try await ServiceGroup.withRunning([emulator], logger: logger) {
                let client = try HyperTrackClient(
                    configuration: .init(
                        baseURL: try await emulator.baseURL(), accountID: emulatorConfiguration.accountID,
                        secretKey: emulatorConfiguration.secretKey
                    ),
                    httpClient: .shared, logger: logger
                )
                let tracking = HyperTrackTripTracking(client: client, logger: logger)
                return try await self.call(payload, databaseURL: url, tracking: tracking, prepare: true, logger: logger)
            }
        }
    }
}

extension ChangeOperation: ExpressibleByArgument {}
