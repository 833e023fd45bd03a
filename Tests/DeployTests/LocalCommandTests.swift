import EmbeddedPostgres
import Foundation
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

/// `ridesharing local` (the real binary) runs the same composition as `serve`: the API with `/metrics`, fed by the
/// worker's and the API's metrics.
@Suite("Deploy: ridesharing local serves /metrics", .timeLimit(.minutes(10)))
struct LocalCommandTests {
    @Test("local answers /healthz, /readyz and /metrics; /metrics counts the worker's handled events and the API's requests")
    func localServesMetrics() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("local-metrics-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        try await TestDatabase.shared.withDatabase(logger: Stack.logger) { client, configuration in
            let url = try await TestDatabase.shared.connectionURL(database: configuration.database ?? "postgres")
            let local = try ChildProcess(
                "ridesharing",
                ["local", "--database-url", url, "--port", "0", "--emulator-port", "0", "--data", data],
                environment: ["LOG_FORMAT": "json", "LOG_LEVEL": "info", "WORKER_POLL_INTERVAL_MS": "200"],
                name: "ridesharing local"
            )
            defer { local.kill() }
            do {
                try await Self.check(local, client: client, data: data)
            } catch {
                Issue.record("\(error); the output of local:\n\(local.output.suffix(30).joined(separator: "\n"))")
            }
        }
    }

    static func check(_ local: ChildProcess, client: PostgresClient, data: String) async throws {
        let port = try await local.httpPort()
        let base = "http://127.0.0.1:\(port)"
        #expect(try await HTTP.send(.GET, "\(base)/healthz").status == 200)
        // Ready means migrated: `local` applies the migrations before its worker starts.
        try await Self.eventually("/readyz is 200") { try await HTTP.send(.GET, "\(base)/readyz").status == 200 }
        _ = try await RollingRestartTests.registerDriver(base, 1)
        // /metrics is on its own port (logged as metrics.port), not the API's; stack.json names it for `simulate`.
        let metricsURL = "http://127.0.0.1:\(try await local.metricsPort())/metrics"
        try await Self.eventually("stack.json names the metrics port") {
            let file = try? Data(contentsOf: URL(fileURLWithPath: data + "/stack.json"))
            let endpoints = try file.map { try JSONDecoder().decode(LocalStack.Endpoints.self, from: $0) }
            return endpoints?.metricsURL.map { $0 + "/metrics" } == metricsURL
        }
        #expect(try await HTTP.send(.GET, "\(base)/metrics").status == 404)

        // The worker names the driver's device on the emulator (registerDriverDevice) and counts it; the count
        // reaches /metrics through the registry the executable bootstrapped.
        try await Self.eventually("registerDriverDevice counted as handled in /metrics") {
            let metrics = try await HTTP.send(.GET, metricsURL).body
            return RollingRestartTests.sum(metrics, "trigger_invocations", containing: #"outcome="handled""#) >= 1
        }
        let metrics = try await HTTP.send(.GET, metricsURL)
        #expect(metrics.status == 200)
        #expect(RollingRestartTests.sum(metrics.body, "hb_requests", containing: "/v1/auth/session") >= 1)
        #expect(metrics.body.contains(#"function="registerDriverDevice""#))
        Self.expectHelp(metrics.body)
        // The API's event hub timed its passes (one at its start, then one per notification or second).
        for stage in ["sequence", "read"] {
            let passes = RollingRestartTests.sum(
                metrics.body, "order_events_hub_duration_count", containing: #"stage="\#(stage)""#
            )
            #expect(passes >= 1, "the event hub's \(stage) stage: \(passes)")
        }
        #expect(metrics.body.contains("trigger_deliveries_up 1"))
        try await Self.expectWebhookStages(base: base, metricsURL: metricsURL)
        #expect(metrics.body.contains(#"trigger_deliveries_dead{function="completeTrip"} 0.0"#))

        // The backlog gauges are the database's: a delivery dead-lettered by any process (here: written directly)
        // is counted.
        try await client.query(
            """
            INSERT INTO trigger_runtime.deliveries (function_name, table_name, operation, document_key, status,
                                                    committed_at)
            VALUES ('completeTrip', 'order_legs', 'update', 'x', 'dead', now() - interval '1 hour')
            """,
            logger: Stack.logger
        )
        let after = try await HTTP.send(.GET, metricsURL).body
        #expect(after.contains(#"trigger_deliveries_dead{function="completeTrip"} 1.0"#), "\(after)")
        #expect(after.contains(#"trigger_deliveries_pending{function="completeTrip"} 0.0"#))

        local.signal(SIGTERM)
        #expect(try await local.exitStatus() == 0, "local exits cleanly on SIGTERM: \(local.output.suffix(10))")
    }

    /// A signed delivery (local's webhook secret, its stack's default, signs it and names the path) is timed in each
    /// stage of `webhook_intake_duration` (a forged one is refused, 401, before it is read as events).
    static func expectWebhookStages(base: String, metricsURL: String) async throws {
        let secret = LocalStack.Configuration().webhookSecret
        let body = #"[{"type":"battery","device_id":"DEV-1","recorded_at":"2026-12-02T10:00:00Z","data":{"value":"low"}}]"#
        let url = "\(base)/v1/hypertrack/webhooks/\(secret)"
        let forged = try await HTTP.send(
            .POST, url, body: body,
            headers: [("x-hypertrack-signature", "00"), ("x-amz-sns-message-id", UUID().uuidString)]
        )
        #expect(forged.status == 401)
        let accepted = try await HTTP.send(
            .POST, url, body: body,
            headers: [
                ("x-hypertrack-signature", HMACWebhookSignatureVerifier.signature(for: Data(body.utf8), secret: secret)),
                ("x-amz-sns-message-id", UUID().uuidString),
            ]
        )
        #expect(accepted.status == 202, "\(accepted.body)")
        let metrics = try await HTTP.send(.GET, metricsURL).body
        for stage in ["read", "decode", "store"] {
            let count = RollingRestartTests.sum(metrics, "webhook_intake_duration_count", containing: #"stage="\#(stage)""#)
            #expect(count >= 1, "stage \(stage): \(count)")
        }
        #expect(metrics.contains(#"webhook_intake_duration_bucket{stage="store",le="0.001"}"#))
    }

    /// Every metric has a `# HELP` line right before its `# TYPE` line, with a text written for it.
    static func expectHelp(_ body: String) {
        let lines = body.split(separator: "\n")
        let types = lines.indices.filter { lines[$0].hasPrefix("# TYPE ") }
        #expect(types.count >= 8)
        for index in types {
            let name = lines[index].split(separator: " ")[2]
            let help = index > 0 ? lines[index - 1] : ""
            #expect(help.hasPrefix("# HELP \(name) "), "\(name) has no # HELP line")
            #expect(!help.contains("recorded through swift-metrics"), "\(name) has no help text of its own")
        }
    }

    /// Polls `condition` (across processes there is no event to await) with a generous deadline.
    static func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw ChildProcess.Failure(description: "timed out: \(what)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
