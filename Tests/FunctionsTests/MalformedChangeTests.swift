import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import Testing
import TriggerRuntime

@Suite("Changes without the row a function needs are refused")
struct MalformedChangeTests {
    let world = World()

    @Test("onTripWebhook needs the inserted inbox row")
    func webhook() async throws {
        let event = WebhookEventRow(id: 1, messageID: "m", eventIndex: 0, type: "trip")
        let function = OnTripWebhook(tracking: self.world.tracking, stores: self.world.store.factory, tariff: Tariff())
        await #expect(throws: FunctionsError.self) {
            try await function.handle(makeDeleteChange(event), context: .testing())
        }
        #expect(await self.world.store.webhookOutcome(eventID: 1) == nil)
    }

    @Test("dispatchOrder needs the inserted order")
    func dispatch() async throws {
        let function = DispatchOrder(
            tracking: self.world.tracking,
            stores: self.world.store.factory,
            timers: self.world.timers,
            radius: 1000,
            offerCount: 1
        )
        await #expect(throws: FunctionsError.self) {
            try await function.handle(makeDeleteChange(self.world.order(.new)), context: .testing())
        }
    }

    @Test("completeTrip needs the leg after the update")
    func completeTrip() async throws {
        let leg = LegRow(id: UUID(), orderID: UUID(), leg: .pickup, deviceID: "D", tripID: "T", status: .completing)
        let function = CompleteTrip(tracking: self.world.tracking, stores: self.world.store.factory)
        await #expect(throws: FunctionsError.self) {
            try await function.handle(makeDeleteChange(leg), context: .testing())
        }
        #expect(self.world.tracking.calls.isEmpty)
    }

    @Test("registerDriverDevice needs the user after the change; a driver row without a device is skipped")
    func registerDevice() async throws {
        let function = RegisterDriverDevice(tracking: self.world.tracking)
        let driver = UserRow(id: UUID(), role: .driver, name: "D", phone: "+4930", deviceID: nil)
        await #expect(throws: FunctionsError.self) {
            try await function.handle(makeDeleteChange(driver), context: .testing())
        }
        try await function.handle(makeCreateChange(driver), context: .testing())
        #expect(self.world.tracking.calls.isEmpty)
    }

    @Test("makeChange infers the operation from which row is missing")
    func operations() {
        let order = self.world.order(.new)
        #expect(makeChange(before: nil, after: order).operation == .create)
        #expect(makeChange(before: order, after: nil).operation == .delete)
        #expect(makeChange(before: order, after: order).operation == .update)
    }
}
