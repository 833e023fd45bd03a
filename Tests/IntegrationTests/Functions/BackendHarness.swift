import BackendServer
import EmbeddedPostgres
import Functions
import HummingbirdTesting
import HyperTrackAPI
import LocalStack
import Logging
import NIOHTTP1
import PostgresNIO
import Prometheus
import Testing
import TriggerRuntime

/// A fresh database with the backend's schema and its API (role `api` of the composition), tested through
/// HummingbirdTesting's router client (no socket).
struct BackendHarness: Sendable {
    let client: PostgresClient
    let api: APIClient
    let backend: Backend

    static let logger = Logger(label: "functions-integration", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The composition the tests run: `role` (on 127.0.0.1 and a free port if served), the worker polling every
    /// 200 ms and draining for at most 2 s at the end.
    static func composition(
        _ role: ServerRole,
        backend: Backend.Configuration,
        client: PostgresClient,
        codeOutbox: Bool = true
    ) -> BackendComposition {
        var configuration = BackendComposition.Configuration()
        configuration.role = role
        configuration.backend = backend
        // Sign-in codes go to an outbox the tests read at GET /local/auth/codes/{phone}, as on a laptop.
        if codeOutbox && configuration.backend.auth.delivery == nil {
            configuration.backend.auth.delivery = CodeOutbox(logger: Self.logger)
        }
        configuration.httpPort = 0
        configuration.metricsPort = 0
        configuration.runtime.pollInterval = .milliseconds(200)
        configuration.runtime.shutdownGracePeriod = .seconds(2)
        return BackendComposition(configuration: configuration, client: client, logger: Self.logger)
    }

    /// Runs `body` against a migrated database and the API application, tearing both down afterwards.
    static func with<T: Sendable>(
        configuration: Backend.Configuration = Backend.Configuration(webhook: .init(secret: "whsec-test")),
        _ body: @escaping @Sendable (BackendHarness) async throws -> T
    ) async throws -> T {
        try await TestDatabase.shared.withDatabase(logger: self.logger) { client, _ in
            let composition = Self.composition(.api, backend: configuration, client: client)
            try await self.migrate(client, backend: composition.backend)
            // As `migrate` does: the functions' capture triggers and timer functions (a booking sets its order's
            // round and window timers in its transaction, and a timer needs its function installed).
            try await TriggerInstaller(client: client, logger: self.logger)
                .install(Backend.bindings, channel: composition.backend.configuration.channel)
            let application = try composition.application(tracking: nil, metrics: PrometheusCollectorRegistry())
            return try await application.test(.router) { testClient in
                try await body(
                    BackendHarness(client: client, api: APIClient(client: testClient), backend: composition.backend)
                )
            }
        }
    }

    /// Applies the webhook deliveries received so far, as the worker (which this harness does not run) would.
    @discardableResult
    func applyWebhooks() async throws -> Int {
        try await ApplyWebhookDelivery.applyWaiting(
            client: self.client,
            maxPositionAge: self.backend.configuration.dispatch.maxPositionAge,
            logger: Self.logger
        )
    }

    /// Applies, recorded, the runtime's and the backend's migrations before the one named `name`, for a test of that
    /// migration on rows written under the schema it changes; returns the migrator and every migration, to apply
    /// the rest.
    static func migrate(_ client: PostgresClient, upTo name: String) async throws -> (Migrator, [Migration]) {
        let all = TriggerRuntime.migrations + Backend().migrations
        let before = try #require(all.firstIndex { $0.name == name }, "no migration \(name)")
        let migrator = Migrator(client: client, logger: self.logger)
        try await migrator.migrate(Array(all[..<before]))
        return (migrator, all)
    }

    /// Applies the runtime's and the backend's migrations (each in order, in one transaction) without recording
    /// them: the operational routes read the runtime's deliveries.
    static func migrate(_ client: PostgresClient, backend: Backend) async throws {
        try await client.withTransaction(logger: self.logger) { connection in
            // The schema the migrator itself creates before the runtime's migrations.
            try await connection.query("CREATE SCHEMA IF NOT EXISTS trigger_runtime", logger: self.logger)
            for migration in TriggerRuntime.migrations + backend.migrations {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
            }
        }
    }
}

enum APIClientError: Error {
    case unexpected(Int, JSONValue)
    case invalidHeader(String)
}

extension JSONValue {
    subscript(index: Int) -> JSONValue {
        if case .array(let values) = self, values.indices.contains(index) { return values[index] }
        return .null
    }
    var arrayValue: [JSONValue] { self.items }
}
