import BenchSupport
import EmbeddedPostgres
import Foundation
import LocalStack
import Logging

/// `serve --api-only` and `serve --worker-only` beside the emulator and a PostgreSQL of the benchmark's own.
struct ServicesScenario {
    let plan: Plan
    let logger: Logger

    func run() async throws -> ScenarioResult {
        // serve sends sign-in codes to an SMS webhook: this inbox stands in for the provider.
        try await SMSWebhookInbox.with(logger: self.logger) { sms in try await self.run(sms: sms) }
    }

    private func run(sms: SMSWebhookInbox) async throws -> ScenarioResult {
        let directory = NSTemporaryDirectory() + "soak-bench-services-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try EmbeddedPostgres.started(
            configuration: .init(dataDirectory: directory + "/pg", settings: ["max_connections": "200"]),
            logger: self.logger
        )
        defer {
            server.stop()
            removeScratch(directory)
        }
        let url = server.url(database: "postgres")
        try await runToCompletion("ridesharing", ["migrate"], environment: ["DATABASE_URL": url, "LOG_LEVEL": "warning"])
        let (apiPort, workerPort, emulatorPort) = (try freePort(), try freePort(), try freePort())
        let secret = "soak-webhook-secret"
        let emulator = try await ChildProcess.start(
            "emulator", executable: "hypertrack-emulator",
            arguments: [
                "--port", "\(emulatorPort)", "--account-id", "soak-account", "--secret-key", "soak-secret",
                "--webhook-url", "http://127.0.0.1:\(apiPort)/v1/hypertrack/webhooks/\(secret)", "--webhook-secret", secret,
                "--log-level", "warning", "--create-devices",  // drivers sign up with made-up device ids
            ],
            environment: [:], readyMarker: "hypertrack-emulator listening on", logDirectory: directory
        )
        let environment = [
            "DATABASE_URL": url, "LOG_LEVEL": "info", "HYPERTRACK_WEBHOOK_SECRET": secret,
            "HYPERTRACK_WEBHOOK_PATH_SECRETS": secret,
            "HYPERTRACK_BASE_URL": "http://127.0.0.1:\(emulatorPort)", "HYPERTRACK_ACCOUNT_ID": "soak-account",
            "HYPERTRACK_SECRET_KEY": "soak-secret", "WORKER_TRANSACTION_BATCH_SIZE": Soak.transactionBatchSize,
            // Two processes on one machine: each its own free metrics port (the default 9464 would be taken twice).
            "METRICS_PORT": "0",
        ].merging(sms.environment) { $1 }
        let api = try await ChildProcess.start(
            "api", executable: "ridesharing", arguments: ["serve", "--api-only"],
            environment: environment.merging(["HTTP_PORT": "\(apiPort)"]) { $1 },
            readyMarker: "HTTP listening", logDirectory: directory
        )
        let worker = try await ChildProcess.start(
            "worker", executable: "ridesharing", arguments: ["serve", "--worker-only"],
            environment: environment.merging(["HTTP_PORT": "\(workerPort)"]) { $1 },
            readyMarker: "HTTP listening", logDirectory: directory
        )
        defer { emulator.terminate() }
        return try await Soak(
            plan: self.plan, name: "services",
            summary: "`ridesharing serve --api-only` and `ridesharing serve --worker-only` (default settings but "
                + "WORKER_TRANSACTION_BATCH_SIZE=\(Soak.transactionBatchSize), see below; LOG_LEVEL=info) beside "
                + "`hypertrack-emulator` and a PostgreSQL of the benchmark's own",
            apiURL: "http://127.0.0.1:\(apiPort)", webhookSecret: secret, databaseURL: url,
            processes: [api, worker], logger: self.logger, codes: sms.codes
        ).run()
    }
}

/// `ridesharing local`: embedded PostgreSQL, emulator, worker and API in one process.
struct LocalScenario {
    let plan: Plan
    let logger: Logger

    func run() async throws -> ScenarioResult {
        let directory = NSTemporaryDirectory() + "soak-bench-local-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { removeScratch(directory) }
        let (apiPort, emulatorPort) = (try freePort(), try freePort())
        let local = try await ChildProcess.start(
            "local", executable: "ridesharing",
            arguments: [
                "local", "--data", directory + "/data", "--port", "\(apiPort)", "--emulator-port", "\(emulatorPort)",
                "--log-level", "info",
            ],
            environment: ["WORKER_TRANSACTION_BATCH_SIZE": Soak.transactionBatchSize],
            readyMarker: "ridesharing local is up", logDirectory: directory
        )
        let endpoints = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: directory + "/data/stack.json"))
        ) as? [String: Any]
        guard let apiURL = endpoints?["apiURL"] as? String, let secret = endpoints?["webhookSecret"] as? String,
            let databaseURL = endpoints?["databaseURL"] as? String
        else {
            local.terminate()
            throw BenchError("stack.json lacks apiURL, webhookSecret or databaseURL")
        }
        return try await Soak(
            plan: self.plan, name: "local",
            summary: "`ridesharing local` (embedded PostgreSQL, emulator, worker and API in one process; the "
                + "PostgreSQL server processes are not counted; WORKER_TRANSACTION_BATCH_SIZE="
                + "\(Soak.transactionBatchSize)), LOG_LEVEL=info",
            apiURL: apiURL, webhookSecret: secret, databaseURL: databaseURL, processes: [local], logger: self.logger
        ).run()
    }
}

/// Deletes a scenario's scratch folder; a failure is said (the folder is left for a look), not thrown over the result.
func removeScratch(_ directory: String) {
    do {
        try FileManager.default.removeItem(atPath: directory)
    } catch {
        say("soak-bench: could not remove \(directory): \(error)")
    }
}
