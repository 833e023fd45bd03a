import HyperTrackAPI
import Logging
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
            FunctionBinding(ApplyWebhookDelivery.self),
            FunctionBinding(OnTripWebhook.self), FunctionBinding(CompleteTrip.self),
            FunctionBinding(DispatchOrder.self), FunctionBinding(RegisterDriverDevice.self),
            FunctionBinding(OfferWaitingOrders.self), FunctionBinding(OfferWaitingOrdersAfterRide.self),
            FunctionBinding(DispatchRound.self),
            FunctionBinding(DispatchWindow.self), FunctionBinding(ReplayWebhookEvent.self),
            FunctionBinding(PruneWebhookEvents.self), FunctionBinding(ReconcileTrips.self),
            FunctionBinding(AnalyzeTrip.self), FunctionBinding(PruneAccounts.self),
            FunctionBinding(PruneOrderEvents.self),
        ]
    }

    /// The trigger functions, registered with their persisted names.
    /// - Parameters:
    ///   - tracking: HyperTrack (the real client, the emulator's, or a fake).
    ///   - stores: Where the functions' store comes from; `.postgres` (the delivery's transaction) by default.
    /// - Returns: `updateOrderStatus`, `deleteOrder`, `onTripWebhook`, `completeTrip`, `dispatchOrder`,
    ///   `registerDriverDevice`, `offerWaitingOrders`, `offerWaitingOrdersAfterRide`, `analyzeTrip`, the timer
    ///   functions `dispatchRound`, `dispatchWindow` and `replayWebhookEvent`, and the scheduled `pruneWebhookEvents`, `reconcileTrips` and
    ///   `pruneAccounts` and `pruneOrderEvents`.
    public func registry(
        tracking: some TripTracking,
        stores: RideStoreFactory = .postgres,
        timers: (any TimerScheduling)? = nil
    ) -> FunctionRegistry {
        var registry = FunctionRegistry()
        self.register(into: &registry, tracking: tracking, stores: stores, timers: timers)
        return registry
    }

    /// The timers of the functions and the API: in the delivery's (or the request's) transaction, notifying the
    /// workers' channel.
    public var timers: any TimerScheduling {
        PostgresTimers(channel: self.configuration.channel, logger: Logger(label: "ridesharing.timers"))
    }

    /// Adds the backend's functions to an existing registry.
    /// - Parameters:
    ///   - registry: The registry to add to.
    ///   - tracking: HyperTrack.
    ///   - stores: Where the functions' store comes from.
    ///   - timers: Where the functions set their timers; ``timers`` (PostgreSQL) by default.
    public func register(
        into registry: inout FunctionRegistry,
        tracking: some TripTracking,
        stores: RideStoreFactory = .postgres,
        timers: (any TimerScheduling)? = nil
    ) {
        let configuration = self.configuration
        let timers = timers ?? self.timers
        registry.register(
            UpdateOrderStatus(
                tracking: tracking,
                stores: stores,
                destinationRadius: configuration.destinationRadius,
                timers: timers
            )
        )
        registry.register(DeleteOrder(stores: stores))
        registry.register(ApplyWebhookDelivery(maxPositionAge: configuration.dispatch.maxPositionAge))
        registry.register(
            OnTripWebhook(tracking: tracking, stores: stores, tariff: configuration.tariff, timers: timers)
        )
        registry.register(CompleteTrip(tracking: tracking, stores: stores))
        registry.register(
            DispatchOrder(tracking: tracking, stores: stores, timers: timers, settings: configuration.dispatch)
        )
        registry.register(RegisterDriverDevice(tracking: tracking))
        registry.register(OfferWaitingOrders(stores: stores, settings: configuration.dispatch))
        registry.register(OfferWaitingOrdersAfterRide(stores: stores, settings: configuration.dispatch))
        registry.register(
            DispatchRound(tracking: tracking, stores: stores, timers: timers, settings: configuration.dispatch)
        )
        registry.register(DispatchWindow(stores: stores))
        registry.register(
            ReplayWebhookEvent(tracking: tracking, stores: stores, tariff: configuration.tariff, timers: timers)
        )
        do {
            try registry.register(PruneWebhookEvents(retention: configuration.webhook.retention))
            try registry.register(ReconcileTrips(tracking: tracking, stores: stores, tariff: configuration.tariff))
        } catch {
            preconditionFailure("the scheduled functions have constant, valid schedules: \(error)")
        }
        registry.register(AnalyzeTrip(trips: configuration.trips))
        do {
            try registry.register(PruneAccounts())
            try registry.register(PruneOrderEvents(retention: configuration.events.retention))
        } catch {
            preconditionFailure("pruneAccounts and pruneOrderEvents have constant, valid schedules: \(error)")
        }
    }
}
