import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import Testing
import TriggerRuntime

@Suite("completeTrip")
struct CompleteTripTests {
    func leg(_ world: World, _ record: LegRecord, _ status: LegStatus) -> LegRow {
        LegRow(
            id: record.id,
            orderID: record.orderID,
            leg: record.kind,
            deviceID: record.deviceID,
            tripID: record.tripID,
            status: status
        )
    }

    func run(_ world: World, _ record: LegRecord, from: LegStatus = .active, to: LegStatus = .completing) async throws {
        try await world.store.run(
            CompleteTrip(tracking: world.tracking, stores: world.store.factory),
            makeChange(before: self.leg(world, record, from), after: self.leg(world, record, to)),
            context: .testing()
        )
    }

    @Test("a leg marked for completion has its trip completed, then is marked completed")
    func completes() async throws {
        let world = World()
        world.tracking.seed(world.trip())
        let record = await world.store.addLeg(
            orderID: world.orderID,
            kind: .pickup,
            trip: world.trip(),
            status: .completing
        )
        try await self.run(world, record)
        #expect(world.tracking.calls == [.completeTrip(id: "T-1")])
        #expect(world.tracking.trips.first?.status == .completed)
        #expect(await world.leg(.pickup)?.record.status == .completed)
    }

    @Test("HyperTrack failing leaves the leg completing; the retry completes it")
    func failureThenRetry() async throws {
        let world = World()
        world.tracking.seed(world.trip())
        let record = await world.store.addLeg(
            orderID: world.orderID,
            kind: .pickup,
            trip: world.trip(),
            status: .completing
        )
        world.tracking.fail(.completeTrip)
        await #expect(throws: FakeTripTrackingError.scripted) { try await self.run(world, record) }
        #expect(await world.leg(.pickup)?.record.status == .completing)
        try await self.run(world, record)
        #expect(await world.leg(.pickup)?.record.status == .completed)
    }

    @Test("a trip already completed on HyperTrack counts as success (a replay)")
    func alreadyCompleted() async throws {
        let world = World()
        var trip = world.trip()
        trip.status = .completed
        world.tracking.seed(trip)
        let record = await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: trip, status: .completing)
        try await self.run(world, record)
        try await self.run(world, record)
        #expect(world.tracking.calls(.completeTrip).count == 2)
        #expect(await world.leg(.pickup)?.record.status == .completed)
    }

    @Test("a leg that is not marked for completion is left alone", arguments: [LegStatus.active, .completed])
    func notMarked(status: LegStatus) async throws {
        let world = World()
        let record = await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip(), status: status)
        try await self.run(world, record, from: .completing, to: status)
        #expect(world.tracking.calls.isEmpty)
    }

    @Test("an unknown trip fails (and is retried, then dead-lettered, by the runtime)")
    func unknownTrip() async throws {
        let world = World()
        let record = await world.store.addLeg(
            orderID: world.orderID,
            kind: .pickup,
            trip: world.trip(),
            status: .completing
        )
        await #expect(throws: FakeTripTrackingError.unknownTrip("T-1")) { try await self.run(world, record) }
        #expect(await world.leg(.pickup)?.record.status == .completing)
    }

    @Test("the functions that call HyperTrack keep retrying through an hour-long outage, even at the shortest jitter")
    func options() {
        let options = FunctionOptions.hyperTrackCalls
        let shortest = (1..<options.maxAttempts).reduce(Duration.zero) {
            $0 + Backoff.delay(afterAttempt: $1, options: options, random: 1)
        }
        #expect(shortest > .seconds(3600), "\(shortest)")
        for var options in [CompleteTrip.options, UpdateOrderStatus.options, OnTripWebhook.options,
                            RegisterDriverDevice.options, ReplayWebhookEvent.options] {
            options.priority = FunctionOptions.hyperTrackCalls.priority  // the arrivals' tier is theirs (ModelTests)
            #expect(options == .hyperTrackCalls)
        }
    }
}
