import Foundation
import Functions
import FunctionsTesting
import Testing
import TriggerRuntime

@Suite("deleteOrder")
struct DeleteOrderTests {
    @Test("a deleted order's active trips are marked for completion; completed ones are left alone")
    func marksActiveLegs() async throws {
        let world = World()
        await world.stage(.droppingOff)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip(), status: .completed)
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: world.trip(id: "T-2", leg: .dropoff))
        await world.store.removeOrder(id: world.orderID)
        try await world.store.run(
            DeleteOrder(stores: world.store.factory),
            makeDeleteChange(world.order(.droppingOff)),
            context: .testing()
        )
        #expect(await world.leg(.dropoff)?.record.status == .completing)
        #expect(await world.leg(.pickup)?.record.status == .completed)
        #expect(world.tracking.calls.isEmpty)
    }

    @Test("an order without trips is deleted without effect")
    func noLegs() async throws {
        let world = World()
        try await world.store.run(
            DeleteOrder(stores: world.store.factory),
            makeDeleteChange(world.order(.new, driver: false)),
            context: .testing()
        )
        #expect(await world.store.storedLegs.isEmpty)
    }

    @Test("a change without the deleted row is refused")
    func malformed() async throws {
        let world = World()
        await #expect(throws: FunctionsError.self) {
            try await DeleteOrder(stores: world.store.factory).handle(
                makeCreateChange(world.order(.new)),
                context: .testing()
            )
        }
    }
}
