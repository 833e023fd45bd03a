import HyperTrackAPI
import TriggerRuntime

/// The ridesharing backend as one value: its schema, its trigger functions and its HTTP API.
///
/// ```swift
/// let backend = Backend(configuration: Backend.Configuration())
/// migrations += backend.migrations                       // group "app", after the runtime's own
/// try await installer.install(Backend.bindings)            // needs no HyperTrack
/// let registry = backend.registry(tracking: HyperTrackTripTracking(client: hyperTrackClient, logger: logger))
/// let router = backend.makeRouter(client: postgresClient, logger: logger)
/// ```
public struct Backend: Sendable {
    /// The backend's settings.
    public var configuration: Configuration

    /// Creates the backend.
    /// - Parameter configuration: Tariff, dispatch, trips and webhook settings.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The domain schema (migration group `app`), oldest first.
    public var migrations: [Migration] { AppMigrations.all }

    /// The functions' bindings (name, trigger, options), read from their types: what `migrate`, `functions list`
    /// and the installer need, without HyperTrack or a store. ``registry(tracking:stores:)`` registers the same
    /// functions in the same order (a test checks it).
    public static var bindings: [FunctionBinding] {
        [
            FunctionBinding(UpdateOrderStatus.self), FunctionBinding(DeleteOrder.self),
            FunctionBinding(OnTripWebhook.self), FunctionBinding(CompleteTrip.self),
            FunctionBinding(DispatchOrder.self), FunctionBinding(RegisterDriverDevice.self),
            FunctionBinding(AnalyzeTrip.self),
        ]
    }

    /// The trigger functions, registered with their persisted names.
    /// - Parameters:
    ///   - tracking: HyperTrack (the real client, the emulator's, or a fake).
    ///   - stores: Where the functions' store comes from; `.postgres` (the delivery's transaction) by default.
    /// - Returns: `updateOrderStatus`, `deleteOrder`, `onTripWebhook`, `completeTrip`, `dispatchOrder`,
    ///   `registerDriverDevice`, `analyzeTrip`.
    public func registry(tracking: some TripTracking, stores: RideStoreFactory = .postgres) -> FunctionRegistry {
        var registry = FunctionRegistry()
        self.register(into: &registry, tracking: tracking, stores: stores)
        return registry
    }

    /// Adds the backend's functions to an existing registry.
    /// - Parameters:
    ///   - registry: The registry to add to.
    ///   - tracking: HyperTrack.
    ///   - stores: Where the functions' store comes from.
    public func register(
        into registry: inout FunctionRegistry,
        tracking: some TripTracking,
        stores: RideStoreFactory = .postgres
    ) {
        let configuration = self.configuration
        registry.register(
            UpdateOrderStatus(
                tracking: tracking,
                stores: stores,
                destinationRadius: configuration.destinationRadius
            )
        )
        registry.register(DeleteOrder(stores: stores))
        registry.register(OnTripWebhook(tracking: tracking, stores: stores, tariff: configuration.tariff))
        registry.register(CompleteTrip(tracking: tracking, stores: stores))
        registry.register(
            DispatchOrder(
                tracking: tracking,
                stores: stores,
                radius: configuration.dispatch.radius,
                offerCount: configuration.dispatch.offerCount,
                useNearbyAPI: configuration.dispatch.useNearbyAPI,
                nearbyTimeout: configuration.dispatch.nearbyTimeout
            )
        )
        registry.register(RegisterDriverDevice(tracking: tracking))
        registry.register(AnalyzeTrip(trips: configuration.trips))
    }
}
