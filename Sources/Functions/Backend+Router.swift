import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO
import TriggerRuntime

extension Backend {
    /// The HTTP API: `/v1` for the apps (bearer auth), `POST /v1/hypertrack/webhooks`, `/healthz`, `/readyz` and
    /// `/openapi.json` (``OpenAPIDocument``, the description of `/v1`).
    /// Every error is a JSON problem body `{status, title, detail}`.
    ///
    /// ```swift
    /// let router = backend.makeRouter(client: client, logger: logger,
    ///                                 requiredMigrations: TriggerRuntime.migrations + backend.migrations)
    /// let app = Application(router: router, configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
    /// let group = ServiceGroup(services: [client, runtime, app], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// ```
    /// - Parameters:
    ///   - client: The database (run it in the same `ServiceGroup`, before the application).
    ///   - logger: Logs server errors (never tokens or secrets).
    ///   - requiredMigrations: What `/readyz` requires to be applied; defaults to the backend's own migrations.
    ///   - events: The process's order event hub, run in the same `ServiceGroup`; without one the event streams
    ///     answer 503.
    /// - Returns: A router for `Application(router:configuration:)`.
    public func makeRouter(
        client: PostgresClient,
        logger: Logger,
        requiredMigrations: [Migration]? = nil,
        events: OrderEventHub? = nil
    ) -> Router<APIRequestContext> {
        // Without a hub (one that runs in the process's ServiceGroup), the streams answer 503.
        let hub = events ?? OrderEventHub(client: client, logger: logger)
        let store = APIStore(
            client: client,
            logger: logger,
            timers: self.timers,
            bookingRound: self.bookingRound,
            acceptGrace: self.configuration.dispatch.acceptGrace,
            stillRefresh: WebhookStatements.Positions.stillRefresh(
                maxPositionAge: self.configuration.dispatch.maxPositionAge
            )
        )
        let router = self.makeHealthRouter(client: client, logger: logger, requiredMigrations: requiredMigrations)
        let v1 = router.group("v1")
        WebhookRoutes(store: store, configuration: self.configuration.webhook, logger: logger).register(v1)
        let accounts = AccountStore(client: client, logger: logger, settings: self.configuration.auth)
        let authenticated = v1.group().add(middleware: BearerAuthMiddleware(accounts: accounts))
        AuthRoutes(accounts: accounts).register(public: v1, authenticated: authenticated)
        APIRoutes(store: store, accounts: accounts, configuration: self.configuration)
            .register(v1: v1, authenticated: authenticated)
        let operators = OperatorStore(client: client, logger: logger)
        let ops = v1.group().add(middleware: OperatorAuthMiddleware(operators: operators, accounts: accounts))
        OpsRoutes(client: client, logger: logger, channel: self.configuration.channel).register(ops)
        if let outbox = self.configuration.auth.delivery as? CodeOutbox {
            AuthRoutes.registerLocal(router, outbox: outbox)
        }
        TripRoutes(store: store, configuration: self.configuration.trips).register(authenticated)
        EventRoutes(store: store, hub: hub, configuration: self.configuration.events).register(authenticated)
        ShareRoutes(store: store, hub: hub, configuration: self.configuration.events)
            .register(authenticated: authenticated, public: router)
        let document = OpenAPIDocument(configuration: self.configuration)
        router.get("openapi.json") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(
                status: .ok,
                headers: headers,
                body: .init(byteBuffer: ByteBuffer(bytes: try document.encoded()))
            )
        }
        return router
    }

    /// The first round a booking runs in its own statement, with the local position index: `nil` with HyperTrack's
    /// Nearby API (`useNearbyAPI`), whose search is an HTTP call that may poll for seconds and so stays in
    /// `dispatchOrder`, outside the rider's request.
    var bookingRound: BookingRound? {
        guard !self.configuration.dispatch.useNearbyAPI else { return nil }
        return BookingRound(settings: self.configuration.dispatch, channel: self.configuration.channel)
    }

    /// Only `/healthz` and `/readyz` (with the API's JSON bodies and problem responses): the router of a process
    /// that serves no API, such as a worker.
    /// - Parameters:
    ///   - client: The database `/readyz` asks.
    ///   - logger: Logs why the process is not ready.
    ///   - requiredMigrations: What `/readyz` requires to be applied; defaults to the backend's own migrations.
    /// - Returns: A router to add routes to (``makeRouter(client:logger:requiredMigrations:)`` adds `/v1`).
    public func makeHealthRouter(
        client: PostgresClient,
        logger: Logger,
        requiredMigrations: [Migration]? = nil
    ) -> Router<APIRequestContext> {
        let router = Router(context: APIRequestContext.self)
        router.add(middleware: ProblemMiddleware())
        HealthRoutes(client: client, migrations: requiredMigrations ?? self.migrations, logger: logger).register(router)
        return router
    }
}

extension Backend {
    /// Every route of ``makeRouter(client:logger:requiredMigrations:)`` as `"METHOD /path/{parameter}"`, read from the
    /// router's own table (`Router.routes`): what `OpenAPITests` compares with ``OpenAPIDocument``. Nothing is
    /// connected or served.
    /// - Parameters:
    ///   - client: A database client (not used until a request is served; it need not run).
    ///   - logger: The router's logger.
    /// - Returns: The routes, sorted.
    public func routeList(client: PostgresClient, logger: Logger) -> [String] {
        self.makeRouter(client: client, logger: logger).routes.map { "\($0.method.rawValue) \($0.path)" }.sorted()
    }
}

extension Backend {
    /// The middleware of the operational routes (an operator's key; 401 without a working credential, 403 for a
    /// rider's or driver's token), for routes the composition adds beside ``makeRouter(client:logger:requiredMigrations:)``
    /// (`/metrics` when it is served on the API's port).
    /// - Parameters:
    ///   - client: The database the keys are in.
    ///   - logger: The queries' logger.
    public func operatorAuthentication(client: PostgresClient, logger: Logger) -> some RouterMiddleware<APIRequestContext> {
        OperatorAuthMiddleware(
            operators: OperatorStore(client: client, logger: logger),
            accounts: AccountStore(client: client, logger: logger, settings: self.configuration.auth)
        )
    }
}

