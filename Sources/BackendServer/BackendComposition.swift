import Functions
import HyperTrackAPI
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle
import TriggerRuntime

/// The backend as one process: a Hummingbird application of a ``ServerRole`` (`/v1` from Functions, `/healthz`,
/// `/readyz`, `/metrics`) with the trigger worker running the backend's functions among its services, on one
/// database client. `ridesharing serve`, `ridesharing local` (through `LocalStack`), the demo, the functions shell and
/// the tests all build their processes here.
///
/// ```swift
/// let client = PostgresClient(configuration: database, backgroundLogger: logger)
/// let composition = BackendComposition(configuration: configuration, client: client, logger: logger)
/// let tracking = HyperTrackTripTracking(client: hyperTrack, logger: logger)
/// let app = try composition.application(tracking: tracking, metrics: registry, prepare: true)
/// let group = ServiceGroup(services: [client, app], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// The client starts first and stops last; inside the application Hummingbird stops the HTTP server before the
/// worker drains.
public struct BackendComposition: Sendable {
    /// What the process runs and how.
    public struct Configuration: Sendable {
        /// The process's role. Default ``ServerRole/all``.
        public var role: ServerRole = .all
        /// The functions' and API's settings.
        public var backend = Backend.Configuration()
        /// The worker's settings.
        public var runtime = TriggerRuntime.Configuration()
        /// Where the HTTP server listens. Default `127.0.0.1`.
        public var httpHost = "127.0.0.1"
        /// The HTTP port; 0 picks a free one (reported to `onListening` and logged as `http.port`). Default 8080.
        public var httpPort = 8080
        /// Where `/metrics` is served: its own port on ``httpHost`` (0 picks a free one, logged as `metrics.port`
        /// in the "metrics listening" line), so it is never behind the public ingress the API is; `nil` serves it
        /// on the API's port, where it requires an operator key. Default 9464.
        public var metricsPort: Int? = 9464

        /// The defaults: both roles on 127.0.0.1:8080, default worker settings.
        public init() {}
    }

    /// The configuration.
    public let configuration: Configuration
    /// The database client; run it in the same `ServiceGroup`, before the application.
    public let client: PostgresClient
    let logger: Logger

    /// Creates the composition.
    /// - Parameters:
    ///   - configuration: Role, backend, worker and HTTP settings.
    ///   - client: The database client (run by the caller).
    ///   - logger: The process's logger.
    public init(configuration: Configuration, client: PostgresClient, logger: Logger) {
        self.configuration = configuration
        self.client = client
        self.logger = logger
    }

    /// The backend (schema, functions, API); its timers notify the runtime's channel.
    public var backend: Backend {
        var backend = self.configuration.backend
        backend.channel = self.configuration.runtime.channel
        return Backend(configuration: backend)
    }

    /// Every migration this build needs, the runtime's first: what `migrate` applies and `/readyz` requires.
    public var requiredMigrations: [Migration] { TriggerRuntime.migrations + self.backend.migrations }

    /// The backend's functions on `tracking`.
    /// - Parameter tracking: HyperTrack (the client's adapter, the emulator's, or a fake).
    public func registry(tracking: some TripTracking) -> FunctionRegistry {
        self.backend.registry(tracking: tracking)
    }

    /// Applies the pending migrations and installs the capture triggers of the backend's functions on the worker's
    /// channel. Call it (with a running client) before the server and the worker start, never beside them
    /// (``application(tracking:metrics:prepare:onListening:)`` with `prepare` does): a write the API accepts after
    /// the migrations but before the triggers would never reach the functions. The triggers depend only on the
    /// functions' bindings (``Backend/bindings``), not on HyperTrack.
    public func prepare() async throws {
        try await TriggerRuntime.prepare(
            client: self.client, bindings: Backend.bindings,
            migrations: self.backend.migrations,
            channel: self.configuration.runtime.channel, logger: self.logger
        )
    }

    /// The trigger worker running `registry`.
    /// - Parameter registry: The functions to run.
    public func worker(registry: FunctionRegistry) -> any Service {
        TriggerRuntime(
            client: self.client, registry: registry, configuration: self.configuration.runtime, logger: self.logger
        )
    }
}
