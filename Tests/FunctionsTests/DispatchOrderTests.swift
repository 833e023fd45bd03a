import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import Testing
import TriggerRuntime

@Suite("dispatchOrder")
struct DispatchOrderTests {
    let world = World()
    // Roughly 111 m per 0.001° of latitude.
    let near = UUID()
    let nearer = UUID()
    let far = UUID()
    let unavailable = UUID()
    let busy = UUID()

    func stage() async {
        let p = World.pickup
        await self.world.store.addOrder(self.world.order(.new, driver: false))
        await self.world.store.addDriver(id: self.near, deviceID: "NEAR", position: (p.latitude + 0.003, p.longitude))
        await self.world.store.addDriver(
            id: self.nearer,
            deviceID: "NEARER",
            position: (p.latitude + 0.001, p.longitude)
        )
        await self.world.store.addDriver(id: self.far, deviceID: "FAR", position: (p.latitude + 0.1, p.longitude))
        await self.world.store.addDriver(
            id: self.unavailable,
            deviceID: "OFF",
            available: false,
            position: (p.latitude, p.longitude)
        )
        await self.world.store.addDriver(id: self.busy, deviceID: "BUSY", position: (p.latitude, p.longitude))
        await self.world.store.addOrder(
            OrderRow(
                id: UUID(),
                status: .droppingOff,
                riderID: UUID(),
                driverID: self.busy,
                pickup: p,
                dropoff: World.dropoff
            )
        )
    }

    func dispatch(offers: Int = 5, nearby: Bool = false) async throws {
        _ = await self.world.dispatchTimers(Backend.Configuration.Dispatch())
        try await self.world.store.run(
            DispatchOrder(
                tracking: self.world.tracking,
                stores: self.world.store.factory,
                timers: self.world.timers,
                radius: 2000,
                offerCount: offers,
                useNearbyAPI: nearby
            ),
            makeCreateChange(self.world.order(.new, driver: false)),
            context: .testing()
        )
    }

    @Test("offers go to available, idle drivers within the radius, nearest first")
    func localIndex() async throws {
        await self.stage()
        try await self.dispatch()
        #expect(await self.world.store.offers(ofOrder: self.world.orderID) == [self.nearer, self.near])
        #expect(self.world.tracking.calls.isEmpty)
    }

    @Test("only the closest N get the offer")
    func limit() async throws {
        await self.stage()
        try await self.dispatch(offers: 1)
        #expect(await self.world.store.offers(ofOrder: self.world.orderID) == [self.nearer])
    }

    @Test("a retry records no duplicate offers")
    func retry() async throws {
        await self.stage()
        try await self.dispatch()
        try await self.dispatch()
        #expect(await self.world.store.offers(ofOrder: self.world.orderID) == [self.nearer, self.near])
    }

    @Test("with the Nearby API, HyperTrack's order is kept and unavailable or busy devices are dropped")
    func nearbyAPI() async throws {
        await self.stage()
        self.world.tracking.setNearbyDevices([
            NearbyDevice(deviceID: "BUSY", location: nil), NearbyDevice(deviceID: "FAR", location: nil),
            NearbyDevice(deviceID: "OFF", location: nil), NearbyDevice(deviceID: "UNKNOWN", location: nil),
            NearbyDevice(deviceID: "NEAR", location: nil), NearbyDevice(deviceID: "FAR", location: nil),
        ])
        try await self.dispatch(nearby: true)
        #expect(await self.world.store.offers(ofOrder: self.world.orderID) == [self.far, self.near])
        guard case .nearbyDevices(let request) = self.world.tracking.calls.first else {
            Issue.record("Nearby API not called")
            return
        }
        #expect(request.location == World.pickup.coordinate)
        #expect(request.radius == 2000)
    }

    @Test("the Nearby API failing throws and records no offers")
    func nearbyFails() async throws {
        await self.stage()
        self.world.tracking.fail(.nearbyDevices)
        await #expect(throws: FakeTripTrackingError.scripted) { try await self.dispatch(nearby: true) }
        #expect(await self.world.store.offers(ofOrder: self.world.orderID).isEmpty)
    }

    @Test("an order no longer NEW (accepted or cancelled already) is not offered")
    func notNew() async throws {
        await self.stage()
        await self.world.store.setStatus(.cancelled, ofOrder: self.world.orderID)
        try await self.dispatch()
        #expect(await self.world.store.offers(ofOrder: self.world.orderID).isEmpty)
    }

    @Test("no driver in range records no offers")
    func nobody() async throws {
        await self.world.store.addOrder(self.world.order(.new, driver: false))
        try await self.dispatch()
        #expect(await self.world.store.offers(ofOrder: self.world.orderID).isEmpty)
    }
}
