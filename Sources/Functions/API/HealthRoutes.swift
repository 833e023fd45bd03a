import Foundation
import Hummingbird
import Logging
import PostgresNIO
import TriggerRuntime

/// `/healthz` (the process answers) and `/readyz` (the database answers and every migration is applied).
struct HealthRoutes: Sendable {
    let client: PostgresClient
    let migrations: [Migration]
    let logger: Logger

    func register(_ router: Router<APIRequestContext>) {
        router.get("healthz") { _, _ in StatusView(status: "ok") }
        router.get("readyz") { _, _ in
            let missing: [String]
            do {
                missing = try await self.missingMigrations()
            } catch {
                self.logger.warning("readiness: database unreachable", metadata: ["error.type": "\(type(of: error))"])
                throw APIProblem(.serviceUnavailable, detail: "the database is unreachable")
            }
            guard missing.isEmpty else {
                throw APIProblem(
                    .serviceUnavailable,
                    detail: "migrations not applied: \(missing.joined(separator: ", "))"
                )
            }
            return StatusView(status: "ready")
        }
    }

    /// The required migrations the database has not recorded, as `group/name`.
    func missingMigrations() async throws -> [String] {
        var applied = Set<String>()
        let exists = try await self.client.query(
            "SELECT to_regclass('trigger_runtime.schema_migrations') IS NOT NULL",
            logger: self.logger
        )
        for try await tableExists in exists.decode(Bool.self) where tableExists {
            let rows = try await self.client.query(
                "SELECT group_name || '/' || name FROM trigger_runtime.schema_migrations",
                logger: self.logger
            )
            for try await name in rows.decode(String.self) { applied.insert(name) }
        }
        return self.migrations.map { "\($0.group)/\($0.name)" }.filter { !applied.contains($0) }
    }
}
