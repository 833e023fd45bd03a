import AsyncHTTPClient
import EmbeddedPostgres
import Foundation
import Functions
import HyperTrackEmulator
import LocalStack
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime

/// One PostgreSQL database, the HyperTrack emulator (in-process) and the environment the `ridesharing` processes
/// of a test share.
struct Stack: Sendable {
    static let logger = Logger(label: "deploy-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    let client: PostgresClient
    let environment: [String: String]
    let emulatorBaseURL: String
    let emulator: HyperTrackEmulator.Configuration
    /// The running emulator (faults, state).
    let hyperTrack: HyperTrackEmulator
    /// Where `serve` sends sign-in codes (its environment points there).
    let sms: SMSWebhookInbox

    /// The environment every process of a test shares, on the database at `url` (no HyperTrack settings).
    static func environment(url: String) -> [String: String] {
        [
            "DATABASE_URL": url,
            "DATABASE_MAX_CONNECTIONS": "8",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_PORT": "0",
            // /metrics on the API's port behind an operator key (several processes share the machine; see
            // `operatorKey`); LocalCommandTests covers the separate port.
            "METRICS_PORT": "main",
            "LOG_FORMAT": "json",
            "LOG_LEVEL": "info",
            "WORKER_CONCURRENCY": "4",
            "WORKER_POLL_INTERVAL_MS": "200",
            "WORKER_SHUTDOWN_GRACE_SECONDS": "15",
        ]
    }

    /// The environment plus the emulator's URL and credentials (what the workers need).
    static func environment(url: String, emulator: HyperTrackEmulator.Configuration, baseURL: String) -> [String: String] {
        Self.environment(url: url).merging(
            [
                "HYPERTRACK_BASE_URL": baseURL,
                "HYPERTRACK_ACCOUNT_ID": emulator.accountID,
                "HYPERTRACK_SECRET_KEY": emulator.secretKey,
            ]
        ) { $1 }
    }

    /// Runs `body` with a fresh database (migrated by the real `ridesharing migrate`) and a running emulator.
    static func with(_ body: @escaping @Sendable (Stack) async throws -> Void) async throws {
        try await SMSWebhookInbox.with(secret: "sms-deploy-tests", logger: Self.logger) { sms in try await Self.with(sms: sms, body) }
    }

    private static func with(sms: SMSWebhookInbox, _ body: @escaping @Sendable (Stack) async throws -> Void) async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, configuration in
            let url = try await TestDatabase.shared.connectionURL(database: configuration.database ?? "postgres")
            var emulatorConfiguration = HyperTrackEmulator.Configuration()
            // Drivers sign up with device ids no phone registered; the worker names them on the emulator.
            emulatorConfiguration.options.autoCreateDevices = true
            let emulator = try HyperTrackEmulator(configuration: emulatorConfiguration, logger: Self.logger)
            try await ServiceGroup.withRunning([emulator], logger: Self.logger) {
                let base = try await emulator.baseURL()
                let stack = Stack(
                    client: client,
                    environment: Self.environment(url: url, emulator: emulatorConfiguration, baseURL: base)
                        .merging(sms.environment) { $1 },
                    emulatorBaseURL: base,
                    emulator: emulatorConfiguration,
                    hyperTrack: emulator,
                    sms: sms
                )
                try await body(stack)
            }
        }
    }

    /// A fresh database migrated by `ridesharing migrate`, then `serve --api-only` (which needs no HyperTrack),
    /// then the emulator posting its signed webhooks to that API, as HyperTrack does in production. `body` gets the
    /// stack (its environment points workers at the emulator), the API process and the API's port.
    /// - Parameters:
    ///   - emulatorConfiguration: The emulator's settings; its webhook URL and secret are set here.
    static func withAPIFirst(
        emulator emulatorConfiguration: HyperTrackEmulator.Configuration,
        _ body: @escaping @Sendable (Stack, ChildProcess, Int) async throws -> Void
    ) async throws {
        try await SMSWebhookInbox.with(secret: "sms-deploy-tests", logger: Self.logger) { sms in try await Self.withAPIFirst(emulator: emulatorConfiguration, sms: sms, body) }
    }

    private static func withAPIFirst(
        emulator emulatorConfiguration: HyperTrackEmulator.Configuration,
        sms: SMSWebhookInbox,
        _ body: @escaping @Sendable (Stack, ChildProcess, Int) async throws -> Void
    ) async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, configuration in
            let url = try await TestDatabase.shared.connectionURL(database: configuration.database ?? "postgres")
            var emulatorConfiguration = emulatorConfiguration
            emulatorConfiguration.webhookSecret = "whsec-deploy-tests"
            // Both checks, as in production: the secret at the end of the URL and the body's HMAC signature.
            let webhookEnvironment = [
                "HYPERTRACK_WEBHOOK_SECRET": "whsec-deploy-tests", "HYPERTRACK_WEBHOOK_PATH_SECRETS": "whsec-deploy-tests",
            ].merging(sms.environment) { $1 }
            let environment = Self.environment(url: url).merging(webhookEnvironment) { $1 }
            try await Self.run(["migrate"], environment: environment)
            let (api, port) = try await Self.serve(["--api-only"], name: "api", environment: environment)
            defer { api.kill() }
            emulatorConfiguration.webhookURL = "http://127.0.0.1:\(port)/v1/hypertrack/webhooks/whsec-deploy-tests"
            let emulator = try HyperTrackEmulator(configuration: emulatorConfiguration, logger: Self.logger)
            try await ServiceGroup.withRunning([emulator], logger: Self.logger) { [emulatorConfiguration] in
                let base = try await emulator.baseURL()
                let stack = Stack(
                    client: client,
                    environment: Self.environment(url: url, emulator: emulatorConfiguration, baseURL: base)
                        .merging(webhookEnvironment) { $1 },
                    emulatorBaseURL: base,
                    emulator: emulatorConfiguration,
                    hyperTrack: emulator,
                    sms: sms
                )
                try await body(stack, api, port)
            }
        }
    }

    /// Runs `ridesharing ARGUMENTS` to completion; throws with its output unless it exits 0.
    func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws {
        try await Self.run(arguments, environment: self.environment.merging(extra) { $1 })
    }

    /// Runs `ridesharing ARGUMENTS` with `environment` to completion; throws with its output unless it exits 0.
    static func run(_ arguments: [String], environment: [String: String]) async throws {
        let process = try ChildProcess(
            "ridesharing", arguments, environment: environment, name: "ridesharing \(arguments.joined(separator: " "))"
        )
        let status = try await process.exitStatus()
        guard status == 0 else {
            throw ChildProcess.Failure(
                description: "\(process.name) exited \(status):\n\(process.output.suffix(30).joined(separator: "\n"))"
            )
        }
    }

    /// Starts `ridesharing serve ARGUMENTS` and waits until it listens; returns it and its HTTP port.
    func serve(_ arguments: [String], name: String, environment extra: [String: String] = [:]) async throws
        -> (ChildProcess, Int)
    {
        try await Self.serve(arguments, name: name, environment: self.environment.merging(extra) { $1 })
    }

    /// Starts `ridesharing serve ARGUMENTS` with `environment` and waits until it listens.
    static func serve(_ arguments: [String], name: String, environment: [String: String]) async throws
        -> (ChildProcess, Int)
    {
        let process = try ChildProcess("ridesharing", ["serve"] + arguments, environment: environment, name: name)
        do {
            return (process, try await process.httpPort())
        } catch {
            process.kill()
            throw error
        }
    }

    /// A new operator's key, for `/metrics` on the processes' API ports (`METRICS_PORT=main`).
    func operatorKey(_ name: String = "deploy-tests") async throws -> String {
        guard let key = try await OperatorStore(client: self.client, logger: Self.logger).create(name: name) else {
            throw ChildProcess.Failure(description: "operator \(name) exists")
        }
        return key
    }

    /// Runs `sql` (a statement without results).
    func execute(_ sql: String) async throws {
        try await self.client.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger)
    }

    /// One value per row of `sql`.
    func rows<T: PostgresDecodable & Sendable>(_ sql: String, as type: T.Type) async throws -> [T] {
        let rows = try await self.client.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger)
        var values: [T] = []
        for try await value in rows.decode(T.self) { values.append(value) }
        return values
    }
}

/// A small JSON client for the processes' HTTP endpoints.
enum HTTP {
    struct Reply: Sendable {
        var status: Int
        var body: String
        func object() -> [String: Any] {
            ((try? JSONSerialization.jsonObject(with: Data(self.body.utf8))) as? [String: Any]) ?? [:]
        }
    }

    static func send(
        _ method: HTTPMethod, _ url: String, json: [String: Any]? = nil, body: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: json)))
        } else if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4 << 20)
        return Reply(status: Int(response.status.code), body: String(buffer: body))
    }
}
