import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import Logging
import TriggerRuntime

/// A world for one test: a fake HyperTrack, an in-memory store, a rider, a driver and an order.
struct World {
    let tracking = FakeTripTracking()
    let store = InMemoryRideStore()
    let riderID = UUID()
    let driverID = UUID()
    let deviceID = "DEVICE-1"
    let orderID = UUID()
    /// The functions' timer scheduler; ``dispatchTimers(_:)`` connects it to an `InMemoryTimers`.
    let timers = TimerRelay()

    static let pickup = OrderRow.Place(latitude: 52.5200, longitude: 13.4050, address: "Alexanderplatz")
    static let dropoff = OrderRow.Place(latitude: 52.5163, longitude: 13.3777, address: "Brandenburger Tor")

    func order(_ status: OrderStatus, driver: Bool = true) -> OrderRow {
        OrderRow(
            id: self.orderID,
            status: status,
            riderID: self.riderID,
            driverID: driver ? self.driverID : nil,
            pickup: Self.pickup,
            dropoff: Self.dropoff
        )
    }

    /// Stores the order in `status` and a driver with a device.
    func stage(_ status: OrderStatus, driver: Bool = true) async {
        await self.store.addDriver(id: self.driverID, deviceID: self.deviceID)
        await self.store.addOrder(self.order(status, driver: driver))
    }

    var updateOrderStatus: UpdateOrderStatus {
        UpdateOrderStatus(tracking: self.tracking, stores: self.store.factory, destinationRadius: 100)
    }

    /// Runs `updateOrderStatus` for `from → to`, as the worker would after the API wrote `to`.
    func transition(_ from: OrderStatus, _ to: OrderStatus, attempt: Int = 1) async throws {
        try await self.store.run(
            self.updateOrderStatus,
            makeChange(before: self.order(from), after: self.order(to)),
            context: .testing(attempt: attempt)
        )
    }

    /// The dispatch timer functions over this world's store, fired by an `InMemoryTimers` whose clock starts with
    /// the store's (move both with ``advance(by:_:)``).
    func dispatchTimers(_ settings: Backend.Configuration.Dispatch) async -> InMemoryTimers {
        var registry = FunctionRegistry()
        registry.register(
            DispatchRound(tracking: self.tracking, stores: self.store.factory, timers: self.timers, settings: settings)
        )
        registry.register(DispatchWindow(stores: self.store.factory))
        let timers = InMemoryTimers(
            registry: registry,
            now: await self.store.now,
            logger: Logger(label: "dispatch-tests", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        await self.timers.connect(timers)
        return timers
    }

    /// Moves the store's clock and the timers' clock together, firing the timers that fall due.
    func advance(by duration: Duration, _ timers: InMemoryTimers) async throws {
        await self.store.advance(by: duration)
        try await timers.advance(by: duration)
    }

    func status() async -> OrderStatus? { await self.store.storedOrder(id: self.orderID)?.status }

    func leg(_ kind: LegKind) async -> InMemoryRideStore.StoredLeg? {
        await self.store.storedLegs.first { $0.record.orderID == self.orderID && $0.record.kind == kind }
    }

    func trip(id: String = "T-1", leg: LegKind = .pickup, order: UUID? = nil) -> Trip {
        Trip(
            tripID: id,
            deviceID: self.deviceID,
            status: .active,
            metadata: [
                "order_id": .string((order ?? self.orderID).uuidString.lowercased()), "leg": .string(leg.rawValue),
            ]
        )
    }
}
