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
        let applied = Set(
            try await Migrator(client: self.client, logger: self.logger).history().map { "\($0.group)/\($0.name)" }
        )
        return self.migrations.map { "\($0.group)/\($0.name)" }.filter { !applied.contains($0) }
    }
}
