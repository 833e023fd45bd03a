import Foundation
import Functions
import NIOHTTP1
import Testing
import TriggerRuntime

/// Upgrading: a newer release's additive migration is applied while the current release's worker and API keep
/// running; they keep handling changes, stay ready, and nothing is lost or handled twice.
@Suite("Deploy: migrating a database in use", .timeLimit(.minutes(10)))
struct MigrationPathTests {
    /// What a next release could add, following deploy/README.md's rule: additive only.
    static let nextRelease = Migration(
        group: "app",
        name: "9000_deploy_test_promo_codes",
        statements: [
            "CREATE TABLE promo_codes (code text PRIMARY KEY, percent integer NOT NULL CHECK (percent BETWEEN 1 AND 100))",
            "ALTER TABLE orders ADD COLUMN promo_code text REFERENCES promo_codes (code)",
            "CREATE INDEX orders_promo_code_idx ON orders (promo_code) WHERE promo_code IS NOT NULL",
        ]
    )

    @Test("an older worker and API keep working while a newer additive migration is applied")
    func additiveMigrationUnderLoad() async throws {
        try await Stack.with { stack in
            try await stack.run(["migrate"])
            let (api, apiPort) = try await stack.serve(["--api-only"], name: "api")
            defer { api.kill() }
            let (worker, workerPort) = try await stack.serve(["--worker-only"], name: "worker")
            defer { worker.kill() }
            let base = "http://127.0.0.1:\(apiPort)"

            var orders: [String] = []
            for ride in 0..<10 { orders.append(try await RollingRestartTests.bookOrder(base, ride, sms: stack.sms).1) }
            // The newer release's migrator runs beside the busy old processes (bookings continue concurrently).
            let migration = Task {
                try await Migrator(client: stack.client, logger: Stack.logger)
                    .migrate(TriggerRuntime.migrations + Functions.Backend().migrations + [Self.nextRelease])
            }
            for ride in 10..<20 { orders.append(try await RollingRestartTests.bookOrder(base, ride, sms: stack.sms).1) }
            let report = try await migration.value
            #expect(report.applied && report.pending == [Self.nextRelease])
            for ride in 20..<30 { orders.append(try await RollingRestartTests.bookOrder(base, ride, sms: stack.sms).1) }

            // The old processes are still ready: they require only the migrations they know.
            #expect(try await HTTP.send(.GET, "http://127.0.0.1:\(workerPort)/readyz").status == 200)
            #expect(try await HTTP.send(.GET, "\(base)/readyz").status == 200)

            let deadline = ContinuousClock.now + .seconds(90)
            while try await stack.rows("SELECT count(*)::int FROM trigger_runtime.deliveries", as: Int.self) != [0] {
                guard ContinuousClock.now < deadline else {
                    Issue.record("the old worker left deliveries after the migration")
                    return
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            try await RideAudit.dispatchedInTheirBookings(stack, orders: orders)
            let columns = try await stack.rows(
                "SELECT count(*)::int FROM information_schema.columns WHERE table_name = 'orders' AND column_name = 'promo_code'",
                as: Int.self
            )
            #expect(columns == [1])
        }
    }

    @Test("a process whose migrations are not applied reports not ready, names them, and does not run them")
    func notReadyUntilMigrated() async throws {
        try await Stack.with { stack in
            let (worker, port) = try await stack.serve(["--worker-only"], name: "worker")
            defer { worker.kill() }
            let ready = try await HTTP.send(.GET, "http://127.0.0.1:\(port)/readyz")
            #expect(ready.status == 503)
            #expect(ready.body.contains("migrations not applied"))
            #expect(try await HTTP.send(.GET, "http://127.0.0.1:\(port)/healthz").status == 200)
            try await stack.run(["migrate"])
            #expect(try await HTTP.send(.GET, "http://127.0.0.1:\(port)/readyz").status == 200)
        }
    }
}
