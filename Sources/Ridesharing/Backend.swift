import AsyncHTTPClient
import Foundation
import Functions
import Hummingbird
import HyperTrackAPI
import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime

/// What the application adds to the worker: the backend's functions, its migrations, and its long-lived services
/// (the HTTP API). `serve`, `migrate` and the local stack all build it here.
struct Composition: Sendable {
    /// The functions the worker runs.
    var registry: FunctionRegistry
    /// The application's migrations (group `app`), applied after the runtime's.
    var migrations: [Migration]
    /// Services run beside the worker, after the client and before the worker in start order.
    var services: [any Service]

    /// Builds the composition.
    /// - Parameters:
    ///   - client: The database client (running inside the service group).
    ///   - settings: The backend's settings (HyperTrack, HTTP, tariff, dispatch, webhooks).
    ///   - serveAPI: Whether to run the HTTP API.
    ///   - logger: The application's logger.
    static func make(client: PostgresClient, settings: BackendSettings, serveAPI: Bool, logger: Logger) throws
        -> Composition
    {
        let backend = Functions.Backend(configuration: settings.backend)
        let tracking: any TripTracking
        if let hyperTrack = settings.hyperTrack {
            tracking = try HyperTrackClient(configuration: hyperTrack, httpClient: HTTPClient.shared, logger: logger)
        } else {
            tracking = UnconfiguredTracking()
        }
        var services: [any Service] = []
        if serveAPI {
            let router = backend.makeRouter(
                client: client,
                logger: logger,
                requiredMigrations: TriggerRuntime.migrations + backend.migrations
            )
            let application = Application(
                router: router,
                configuration: .init(address: .hostname(settings.httpHost, port: settings.httpPort)),
                onServerRunning: { channel in
                    logger.info("HTTP API listening", metadata: ["http.address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
                },
                logger: logger
            )
            services.append(application)
        }
        return Composition(registry: backend.registry(tracking: tracking), migrations: backend.migrations, services: services)
    }
}

/// Stands in for HyperTrack where no credentials are configured (`migrate` needs the registry's triggers, not
/// HyperTrack): every call fails with an error that says what to set.
struct UnconfiguredTracking: TripTracking {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String {
            "HyperTrack is not configured: set HYPERTRACK_ACCOUNT_ID and HYPERTRACK_SECRET_KEY (and HYPERTRACK_BASE_URL "
                + "for the emulator), or run `ridesharing local`"
        }
    }

    func createTrip(_ request: CreateTripRequest) async throws -> Trip { throw NotConfigured() }
    func trip(id: String) async throws -> Trip { throw NotConfigured() }
    func completeTrip(id: String) async throws { throw NotConfigured() }
    func activeTrips(deviceID: String) async throws -> [Trip] { throw NotConfigured() }
    func updateDevice(id: String, name: String?, metadata: [String: JSONValue]?) async throws { throw NotConfigured() }
    func nearbyDevices(_ request: NearbyRequest, deadline: ContinuousClock.Instant) async throws -> [NearbyDevice] {
        throw NotConfigured()
    }
}
