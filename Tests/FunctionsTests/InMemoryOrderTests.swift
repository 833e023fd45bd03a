import Foundation
import Functions
import FunctionsTesting
import Testing

/// The in-memory twin keeps the API's rules of the state machine, as `PostgresRideStore` does on the database
/// (`OrderSchemaTests` checks the same sequence there).
@Suite("InMemoryRideStore: the API's order writes")
struct InMemoryOrderTests {
    let store = InMemoryRideStore()
    let rider = UUID()
    let driver = UUID()
    let other = UUID()

    func book(rider: UUID? = nil) async throws -> OrderRow {
        try await self.store.book(NewOrder(riderID: rider ?? self.rider, pickup: World.pickup, dropoff: World.dropoff))
    }

    func startRide(_ orderID: UUID, by driverID: UUID) async throws -> Bool {
        try await self.store.advance(orderID: orderID, driverID: driverID, from: .reachedPickup, to: .startedRide)
    }

    @Test("a booked order is NEW; only a driver it was offered to can accept it, and only the first")
    func firstAcceptWins() async throws {
        let order = try await self.book()
        #expect(order.status == .new)
        #expect(order.riderID == self.rider)
        #expect(try await self.store.accept(orderID: order.id, driverID: self.driver) == false)
        try await self.store.recordOffers(orderID: order.id, driverIDs: [self.driver, self.other])
        #expect(try await self.store.accept(orderID: order.id, driverID: self.driver))
        #expect(try await self.store.accept(orderID: order.id, driverID: self.other) == false)
        #expect(await self.store.storedOrder(id: order.id)?.driverID == self.driver)
    }

    @Test("a driver with an active order cannot accept another")
    func busyDriver() async throws {
        let first = try await self.book()
        let second = try await self.book(rider: UUID())
        try await self.store.recordOffers(orderID: first.id, driverIDs: [self.driver])
        try await self.store.recordOffers(orderID: second.id, driverIDs: [self.driver])
        #expect(try await self.store.accept(orderID: first.id, driverID: self.driver))
        await #expect(throws: FunctionsError.driverBusy(self.driver)) {
            try await self.store.accept(orderID: second.id, driverID: self.driver)
        }
    }

    @Test("a rider has at most one open order; once it is finished they can book again")
    func oneOpenOrder() async throws {
        let order = try await self.book()
        await #expect(throws: FunctionsError.riderBusy(self.rider)) { try await self.book() }
        #expect(try await self.store.cancel(orderID: order.id, by: self.rider, reason: "changed plans"))
        #expect(try await self.book().status == .new)
    }

    @Test("an offer expires with the store's clock, an accept within the grace still wins, a declined one never")
    func expiryAndDecline() async throws {
        let order = try await self.book()
        try await self.store.recordOffers(orderID: order.id, driverIDs: [self.driver, self.other], round: 1, ttl: .seconds(20))
        #expect(await self.store.decline(orderID: order.id, driverID: self.other))
        #expect(await self.store.decline(orderID: order.id, driverID: self.other) == false, "declined once")
        #expect(try await self.store.accept(orderID: order.id, driverID: self.other) == false)
        #expect(try await self.store.openOffersExpiry(orderID: order.id) != nil)
        await self.store.advance(by: .seconds(20))
        #expect(try await self.store.openOffersExpiry(orderID: order.id) == nil)
        #expect(try await self.store.accept(orderID: order.id, driverID: self.driver) == false, "expired")
        await self.store.advance(by: .seconds(4))
        #expect(try await self.store.accept(orderID: order.id, driverID: self.other, grace: .seconds(10)) == false)
        #expect(try await self.store.accept(orderID: order.id, driverID: self.driver, grace: .seconds(3)) == false)
        #expect(try await self.store.accept(orderID: order.id, driverID: self.driver, grace: .seconds(5)), "in grace")
    }

    @Test("only the order's driver advances it, from the status it is in; a finished order is not cancelled")
    func advanceAndCancel() async throws {
        let order = try await self.book()
        try await self.store.recordOffers(orderID: order.id, driverIDs: [self.driver])
        #expect(try await self.store.accept(orderID: order.id, driverID: self.driver))
        await self.store.setStatus(.reachedPickup, ofOrder: order.id)
        #expect(try await self.startRide(order.id, by: self.other) == false)
        #expect(try await self.startRide(order.id, by: self.driver))
        #expect(try await self.startRide(order.id, by: self.driver) == false)
        #expect(try await self.store.cancel(orderID: order.id, by: self.other, reason: "x") == false)
        #expect(try await self.store.cancel(orderID: order.id, by: self.rider, reason: "changed plans"))
        #expect(await self.store.storedOrder(id: order.id)?.cancellationReason == "changed plans")
        #expect(try await self.store.cancel(orderID: order.id, by: self.rider, reason: "again") == false)
    }

    @Test("a scripted failure of an order write throws before any effect")
    func scriptedFailure() async throws {
        await self.store.fail(.book)
        await #expect(throws: InMemoryRideStoreError.scripted(.book)) { try await self.book() }
        #expect(try await self.book().status == .new)
    }
}
