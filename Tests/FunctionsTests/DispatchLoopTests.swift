import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import Testing
import TriggerRuntime

/// Dispatch as a loop in time, in memory: `dispatchOrder`, the round and window timers, `offerWaitingOrders` and
/// `offerWaitingOrdersAfterRide`, on one clock the test moves (the store's and the timers').
@Suite("Dispatch in time: rounds, expiry, decline, the window")
struct DispatchLoopTests {
    let world = World()
    /// Round 1 searches 1 km, each next round 1 km more up to 3 km; one driver per round; offers live 20 s; the
    /// window is 2 minutes.
    let settings = Backend.Configuration.Dispatch(
        radius: 1000,
        radiusStep: 1000,
        maxRadius: 3000,
        offerCount: 1,
        offerTTL: .seconds(20),
        window: .seconds(120)
    )

    /// Books the world's order at the store's now and runs `dispatchOrder` on it.
    func book() async throws {
        var order = self.world.order(.new, driver: false)
        order.createdAt = await self.world.store.now
        await self.world.store.addOrder(order)
        try await self.world.store.run(
            DispatchOrder(tracking: self.world.tracking, stores: self.world.store.factory, timers: self.world.timers,
                          settings: self.settings),
            makeCreateChange(order),
            context: .testing()
        )
    }

    /// A driver `metres` north of the pickup, with a position as fresh as the store's clock.
    func driver(_ id: UUID, _ device: String, north metres: Double, available: Bool = true) async {
        let p = World.pickup
        await self.world.store.addDriver(
            id: id, deviceID: device, available: available, position: (p.latitude + metres / 111_000, p.longitude),
            recordedAt: await self.world.store.now
        )
    }

    func order() async -> OrderRow? { await self.world.store.storedOrder(id: self.world.orderID) }

    @Test("no driver: the rounds widen, each empty round in a row waits twice as long (20, 40, 60 s), then the window")
    func noDriverFound() async throws {
        let timers = await self.world.dispatchTimers(self.settings)
        try await self.book()
        let rounds = { await self.world.store.dispatchRounds(ofOrder: self.world.orderID) }
        #expect(await rounds() == 1)
        try await self.world.advance(by: .seconds(19), timers)
        #expect(await rounds() == 1, "not before the expiry")
        try await self.world.advance(by: .seconds(1), timers)
        #expect(await rounds() == 2)
        try await self.world.advance(by: .seconds(39), timers)
        #expect(await rounds() == 2, "a second empty round: the next waits 40 s")
        try await self.world.advance(by: .seconds(1), timers)
        #expect(await rounds() == 3)
        try await self.world.advance(by: .seconds(59), timers)
        #expect(await rounds() == 3, "a third: 80 s, at most 60")
        #expect(await self.order()?.status == .new, "not before the window closes")
        try await self.world.advance(by: .seconds(1), timers)
        let cancelled = await self.order()
        #expect(cancelled?.status == .cancelled)
        #expect(cancelled?.cancellationReason == OrderRow.noDriverFound)
        let last = await rounds()
        try await self.world.advance(by: .seconds(100), timers)
        #expect(await rounds() == last, "no round after")
        #expect(await timers.pendingTimers.isEmpty)
    }

    @Test("the wait after empty rounds: the offer lifetime, doubling, at most the cap and never below the lifetime")
    func emptyRoundDelays() {
        #expect((1...5).map(self.settings.delay(afterEmptyRounds:)) == [20, 40, 60, 60, 60].map(Duration.seconds))
        var short = self.settings
        short.offerTTL = .seconds(5)
        #expect((1...7).map(short.delay(afterEmptyRounds:)) == [5, 10, 20, 40, 60, 60, 60].map(Duration.seconds))
        var long = self.settings
        long.offerTTL = .seconds(1200)
        #expect((1...3).map(long.delay(afterEmptyRounds:)) == [1200, 1200, 1200].map(Duration.seconds))
        #expect(self.settings.delay(afterEmptyRounds: 0) == .seconds(20))
    }

    @Test("a round that offers someone starts the count again: the round after the next empty one waits the lifetime")
    func offeredRoundResetsTheWait() async throws {
        let (near, next) = (UUID(), UUID())
        await self.driver(near, "NEAR", north: 200)
        let timers = await self.world.dispatchTimers(self.settings)
        try await self.book()
        #expect(await self.world.store.offers(ofOrder: self.world.orderID) == [near], "round 1 offers")
        try await self.world.advance(by: .seconds(20), timers)
        // Round 2 (at 20 s) finds nobody new: one empty round after an offered one, so round 3 is 20 s later.
        #expect(await self.world.store.dispatchRounds(ofOrder: self.world.orderID) == 2)
        await self.driver(next, "NEXT", north: 600)
        try await self.world.advance(by: .seconds(20), timers)
        #expect(await self.world.store.dispatchRounds(ofOrder: self.world.orderID) == 3)
        #expect(await self.world.store.offers(ofOrder: self.world.orderID) == [near, next])
    }

    @Test("a driver beyond the first radius gets the offer in a wider round")
    func widening() async throws {
        let far = UUID()
        await self.driver(far, "FAR", north: 1500)
        let timers = await self.world.dispatchTimers(self.settings)
        try await self.book()
        #expect(await self.world.store.offers(ofOrder: self.world.orderID).isEmpty, "round 1: 1 km")
        await self.world.store.addDriver(
            id: far, deviceID: "FAR", position: (World.pickup.latitude + 1500 / 111_000, World.pickup.longitude),
            recordedAt: await self.world.store.now + 20
        )
        try await self.world.advance(by: .seconds(20), timers)
        #expect(await self.world.store.offerRecords(ofOrder: self.world.orderID).map(\.driverID) == [far])
        #expect(await self.world.store.offerRecords(ofOrder: self.world.orderID).first?.round == 2)
        #expect(try await self.world.store.accept(orderID: self.world.orderID, driverID: far))
    }

    @Test("a driver who comes online during round 2 is offered the waiting order at once")
    func comesOnline() async throws {
        let late = UUID()
        await self.driver(late, "LATE", north: 300, available: false)
        let timers = await self.world.dispatchTimers(self.settings)
        try await self.book()
        try await self.world.advance(by: .seconds(25), timers)
        #expect(await self.world.store.dispatchRounds(ofOrder: self.world.orderID) == 2)
        #expect(await self.world.store.offers(ofOrder: self.world.orderID).isEmpty)
        let before = UserRow(id: late, role: .driver, name: "L", phone: "1", deviceID: "LATE", available: false)
        var after = before
        after.available = true
        await self.world.store.addDriver(
            id: late, deviceID: "LATE", position: (World.pickup.latitude + 300 / 111_000, World.pickup.longitude),
            recordedAt: await self.world.store.now
        )
        try await self.world.store.run(
            OfferWaitingOrders(stores: self.world.store.factory, settings: self.settings),
            makeChange(before: before, after: after),
            context: .testing()
        )
        let offer = try #require(await self.world.store.offerRecords(ofOrder: self.world.orderID).first)
        #expect(offer.driverID == late && offer.round == 2)
        // Round 2's timer finds the offer open and waits for it instead of starting round 3.
        try await self.world.advance(by: .seconds(15), timers)
        #expect(await self.world.store.dispatchRounds(ofOrder: self.world.orderID) == 2)
        #expect(try await self.world.store.accept(orderID: self.world.orderID, driverID: late))
    }

    @Test("a driver whose ride ends near a waiting order is offered it at once, not at the order's next round")
    func rideEnds() async throws {
        let timers = await self.world.dispatchTimers(self.settings)
        try await self.book()
        try await self.world.advance(by: .seconds(20), timers)
        // Two empty rounds: the next is 40 s away.
        #expect(await self.world.store.dispatchRounds(ofOrder: self.world.orderID) == 2)
        let freed = UUID()
        await self.driver(freed, "FREED", north: 400)
        var ride = OrderRow(
            id: UUID(), status: .reachedDropoff, riderID: UUID(), driverID: freed, pickup: World.dropoff,
            dropoff: World.pickup
        )
        await self.world.store.addOrder(ride)
        let function = OfferWaitingOrdersAfterRide(stores: self.world.store.factory, settings: self.settings)
        var cancelledUnassigned = self.world.order(.new, driver: false)
        cancelledUnassigned.id = UUID()
        var cancelledAfter = cancelledUnassigned
        cancelledAfter.status = .cancelled
        try await self.world.store.run(
            function, makeChange(before: cancelledUnassigned, after: cancelledAfter), context: .testing()
        )
        #expect(await self.world.store.offers(ofOrder: self.world.orderID).isEmpty, "a driverless order frees nobody")
        try await self.world.store.run(function, makeChange(before: ride, after: ride), context: .testing())
        #expect(await self.world.store.offers(ofOrder: self.world.orderID).isEmpty, "still on the ride: offered nothing")
        let before = ride
        ride.status = .completed
        await self.world.store.addOrder(ride)
        try await self.world.store.run(function, makeChange(before: before, after: ride), context: .testing())
        let offer = try #require(await self.world.store.offerRecords(ofOrder: self.world.orderID).first)
        #expect(offer.driverID == freed && offer.round == 2, "offered in the order's current round, 20 s before round 3")
        try await self.world.store.run(function, makeChange(before: ride, after: ride), context: .testing())
        #expect(await self.world.store.offerRecords(ofOrder: self.world.orderID).count == 1, "a final order updated again")
        #expect(try await self.world.store.accept(orderID: self.world.orderID, driverID: freed))
    }

    @Test("a decline moves the order to the next nearest driver; the expired offer cannot be accepted")
    func declineAndExpiry() async throws {
        let (near, next) = (UUID(), UUID())
        await self.driver(near, "NEAR", north: 200)
        await self.driver(next, "NEXT", north: 600)
        let timers = await self.world.dispatchTimers(self.settings)
        try await self.book()
        #expect(await self.world.store.offers(ofOrder: self.world.orderID) == [near])
        #expect(await self.world.store.decline(orderID: self.world.orderID, driverID: near))
        try await timers.advance(by: .zero)
        try await self.world.advance(by: .seconds(20), timers)
        #expect(await self.world.store.offers(ofOrder: self.world.orderID) == [near, next])
        try await self.world.advance(by: .seconds(20), timers)
        #expect(try await self.world.store.accept(orderID: self.world.orderID, driverID: next) == false, "expired")
        #expect(await self.world.store.dispatchRounds(ofOrder: self.world.orderID) == 3)
    }

    @Test("stale positions and devices that stopped tracking are not offered anything")
    func staleAndInactive() async throws {
        let (stale, inactive) = (UUID(), UUID())
        await self.driver(stale, "STALE", north: 100)
        await self.driver(inactive, "INACTIVE", north: 200)
        _ = try await self.world.store.setDeviceStatus(
            deviceID: "INACTIVE", status: "inactive", at: await self.world.store.now
        )
        await self.world.store.advance(by: .seconds(121))
        _ = try await self.world.store.updateDriverPosition(
            deviceID: "INACTIVE", latitude: World.pickup.latitude, longitude: World.pickup.longitude,
            recordedAt: await self.world.store.now
        )
        _ = await self.world.dispatchTimers(self.settings)
        try await self.book()
        #expect(await self.world.store.offers(ofOrder: self.world.orderID).isEmpty)
        _ = try await self.world.store.setDeviceStatus(
            deviceID: "INACTIVE", status: "active", at: await self.world.store.now
        )
        #expect(
            try await self.world.store.nearestAvailableDrivers(near: World.pickup.coordinate, radius: 1000, limit: 5)
                == [inactive]
        )
    }
}
