import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import Testing
import TriggerRuntime

@Suite("updateOrderStatus")
struct UpdateOrderStatusTests {
    @Test("NEW → ACCEPTED creates the pickup trip with {order_id, leg} and moves to PICKING_UP")
    func acceptCreatesPickupTrip() async throws {
        let world = World()
        await world.stage(.accepted)
        try await world.transition(.new, .accepted)

        let creates = world.tracking.calls(.createTrip)
        #expect(creates.count == 1)
        guard case .createTrip(let request) = creates.first else { return }
        #expect(request.deviceID == world.deviceID)
        #expect(request.destination?.point == World.pickup.coordinate)
        #expect(request.destination?.radius == 100)
        #expect(request.metadata?["order_id"] == .string(world.orderID.uuidString.lowercased()))
        #expect(request.metadata?["leg"] == "pickup")
        let leg = try #require(await world.leg(.pickup))
        #expect(leg.record.tripID == world.tracking.trips.first?.tripID)
        #expect(leg.record.status == .active)
        #expect(await world.status() == .pickingUp)
    }

    @Test("HyperTrack failing to create the trip throws and records nothing; the retry creates exactly one trip")
    func createFailsThenRetrySucceeds() async throws {
        let world = World()
        await world.stage(.accepted)
        world.tracking.fail(.createTrip)
        await #expect(throws: FakeTripTrackingError.scripted) { try await world.transition(.new, .accepted) }
        #expect(await world.leg(.pickup) == nil)
        #expect(await world.status() == .accepted)

        try await world.transition(.new, .accepted, attempt: 2)
        #expect(world.tracking.trips.count == 1)
        #expect(await world.status() == .pickingUp)
    }

    @Test(
        "a create that got no answer asks the runtime to wait before the retry, which adopts the trip HyperTrack made late"
    )
    func unansweredCreateWaitsThenAdopts() async throws {
        let world = World()
        await world.stage(.accepted)
        world.tracking.fail(.createTrip, with: HyperTrackAPIError(code: .transport, reason: "timed out"))
        do {
            try await world.transition(.new, .accepted)
            Issue.record("the unanswered create did not throw")
        } catch let error as HyperTrackAPIError {
            #expect(error.code == .transport)
            #expect((error.retryAfter ?? .zero) >= .seconds(15), "the retry must wait for a late trip")
        }
        // Meanwhile HyperTrack finished the request the client gave up on: the retry adopts that trip.
        world.tracking.seed(world.trip(id: "late-trip"))
        try await world.transition(.new, .accepted, attempt: 2)
        #expect(world.tracking.calls(.createTrip).count == 1, "no second trip created")
        #expect(await world.leg(.pickup)?.record.tripID == "late-trip")
        #expect(await world.status() == .pickingUp)
    }

    @Test("HyperTrack failing to list active trips throws before anything is created")
    func activeTripsFails() async throws {
        let world = World()
        await world.stage(.accepted)
        world.tracking.fail(.activeTrips)
        await #expect(throws: FakeTripTrackingError.scripted) { try await world.transition(.new, .accepted) }
        #expect(world.tracking.calls(.createTrip).isEmpty)
        #expect(await world.status() == .accepted)
    }

    @Test("a retry after the trip was created but not recorded adopts it instead of creating a second")
    func retryAfterPartialEffectAdopts() async throws {
        let world = World()
        await world.stage(.accepted)
        await world.store.fail(.moveOrder)  // crash after createTrip + recordLeg, before commit
        await #expect(throws: InMemoryRideStoreError.self) { try await world.transition(.new, .accepted) }
        #expect(world.tracking.trips.count == 1)
        #expect(await world.leg(.pickup) == nil, "the failed attempt's writes are rolled back")

        try await world.transition(.new, .accepted, attempt: 2)
        #expect(world.tracking.calls(.createTrip).count == 1, "no second trip")
        let leg = try #require(await world.leg(.pickup))
        #expect(leg.record.tripID == world.tracking.trips[0].tripID)
        #expect(await world.status() == .pickingUp)
    }

    @Test("only a trip whose metadata names this order and leg is adopted")
    func adoptionMatchesMetadata() async throws {
        let world = World()
        await world.stage(.accepted)
        world.tracking.seed(world.trip(id: "OTHER-ORDER", leg: .pickup, order: UUID()))
        world.tracking.seed(world.trip(id: "OTHER-LEG", leg: .dropoff))
        try await world.transition(.new, .accepted)
        #expect(world.tracking.calls(.createTrip).count == 1)
        let leg = try #require(await world.leg(.pickup))
        #expect(leg.record.tripID != "OTHER-ORDER" && leg.record.tripID != "OTHER-LEG")
    }

    @Test("a recorded leg is reused without calling HyperTrack")
    func recordedLegIsReused() async throws {
        let world = World()
        await world.stage(.accepted)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip())
        try await world.transition(.new, .accepted)
        #expect(world.tracking.calls.isEmpty)
        #expect(await world.status() == .pickingUp)
    }

    @Test("an order cancelled before the function ran gets no trip")
    func cancelledBeforeAcceptHandled() async throws {
        let world = World()
        await world.stage(.cancelled)
        try await world.transition(.new, .accepted)
        #expect(world.tracking.calls.isEmpty)
        #expect(await world.store.storedLegs.isEmpty)
        #expect(await world.status() == .cancelled)
    }

    @Test("a trip a crashed attempt created but never recorded is completed when the order is cancelled meanwhile")
    func unrecordedTripOfACancelledOrder() async throws {
        let world = World()
        await world.stage(.cancelled)
        // Attempt 1 of NEW → ACCEPTED created the pickup trip, then crashed before its commit: no leg.
        world.tracking.seed(world.trip(id: "T-ORPHAN"))
        world.tracking.seed(world.trip(id: "T-OTHER-ORDER", order: UUID()))
        try await world.transition(.new, .accepted)
        #expect(world.tracking.calls(.completeTrip).isEmpty, "the retry sees the order cancelled and creates nothing")
        try await world.transition(.accepted, .cancelled)
        #expect(world.tracking.calls(.completeTrip).map(\.operation) == [.completeTrip])
        guard case .completeTrip(let id) = world.tracking.calls(.completeTrip).first else { return }
        #expect(id == "T-ORPHAN", "only this order's trip")
        #expect(await world.store.storedLegs.isEmpty)
    }

    @Test("a replay of NEW → ACCEPTED after the order moved on does nothing")
    func replayAfterSuccess() async throws {
        let world = World()
        await world.stage(.accepted)
        try await world.transition(.new, .accepted)
        try await world.transition(.new, .accepted, attempt: 1)
        #expect(world.tracking.calls(.createTrip).count == 1)
        #expect(await world.status() == .pickingUp)
    }

    @Test("an order whose driver has no device fails clearly")
    func driverWithoutDevice() async throws {
        let world = World()
        await world.store.addOrder(world.order(.accepted))
        await #expect(throws: FunctionsError.self) { try await world.transition(.new, .accepted) }
        #expect(world.tracking.calls.isEmpty)
    }

    @Test("REACHED_PICKUP → STARTED_RIDE marks the pickup trip, creates the dropoff trip, moves to DROPPING_OFF")
    func startRide() async throws {
        let world = World()
        await world.stage(.startedRide)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip())
        try await world.transition(.reachedPickup, .startedRide)

        #expect(await world.leg(.pickup)?.record.status == .completing)
        #expect(world.tracking.calls(.completeTrip).isEmpty, "completion is completeTrip's job")
        guard case .createTrip(let request) = world.tracking.calls(.createTrip).first else {
            Issue.record("no dropoff trip created")
            return
        }
        #expect(request.destination?.point == World.dropoff.coordinate)
        #expect(request.metadata?["leg"] == "dropoff")
        #expect(await world.leg(.dropoff) != nil)
        #expect(await world.status() == .droppingOff)
    }

    @Test("a failure creating the dropoff trip rolls back the pickup mark too")
    func startRideFailureRollsBack() async throws {
        let world = World()
        await world.stage(.startedRide)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip())
        world.tracking.fail(.createTrip)
        await #expect(throws: FakeTripTrackingError.scripted) {
            try await world.transition(.reachedPickup, .startedRide)
        }
        #expect(await world.leg(.pickup)?.record.status == .active)
        #expect(await world.status() == .startedRide)
        try await world.transition(.reachedPickup, .startedRide, attempt: 2)
        #expect(await world.status() == .droppingOff)
        #expect(world.tracking.calls(.createTrip).count == 2)
        #expect(world.tracking.trips.count == 1)
    }

    @Test("STARTED_RIDE that was cancelled before the function ran creates no dropoff trip")
    func startRideAfterCancel() async throws {
        let world = World()
        await world.stage(.cancelled)
        try await world.transition(.reachedPickup, .startedRide)
        #expect(world.tracking.calls.isEmpty)
    }

    @Test("→ COMPLETED marks the dropoff trip for completion and calls nothing itself")
    func completeMarksDropoff() async throws {
        let world = World()
        await world.stage(.completed)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip(), status: .completed)
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: world.trip(id: "T-2", leg: .dropoff))
        try await world.transition(.reachedDropoff, .completed)
        #expect(await world.leg(.dropoff)?.record.status == .completing)
        #expect(await world.leg(.pickup)?.record.status == .completed)
        #expect(world.tracking.calls.isEmpty)
    }

    @Test("→ CANCELLED marks every active trip and frees the driver for dispatch")
    func cancelMarksActiveTrips() async throws {
        let world = World()
        await world.stage(.pickingUp)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip())
        let point = World.pickup.coordinate
        _ = try await world.store.updateDriverPosition(
            deviceID: world.deviceID,
            latitude: point.latitude,
            longitude: point.longitude,
            recordedAt: Date(timeIntervalSince1970: 1_800_000_100)
        )
        #expect(try await world.store.nearestAvailableDrivers(near: point, radius: 1000, limit: 5).isEmpty, "busy")
        await world.store.setStatus(.cancelled, ofOrder: world.orderID)
        try await world.transition(.pickingUp, .cancelled)
        #expect(await world.leg(.pickup)?.record.status == .completing)
        #expect(try await world.store.nearestAvailableDrivers(near: point, radius: 1000, limit: 5) == [world.driverID])
    }

    /// Every legal transition to a status the trigger skips (``UpdateOrderStatus/actingOn``): its filter may only
    /// leave out transitions that need nothing.
    static let skipped: [(OrderStatus, OrderStatus)] = OrderStatus.allCases.flatMap { from in
        from.successors.filter { !UpdateOrderStatus.actingOn.contains($0) }.map { (from, $0) }
    }

    @Test("the transitions the trigger skips are the four that need no action")
    func skippedTransitions() {
        #expect(Self.skipped.map { "\($0.0.rawValue)→\($0.1.rawValue)" }.sorted() == [
            "ACCEPTED→PICKING_UP", "DROPPING_OFF→REACHED_DROPOFF", "PICKING_UP→REACHED_PICKUP",
            "STARTED_RIDE→DROPPING_OFF",
        ])
    }

    @Test("transitions the trigger skips would do nothing", arguments: Self.skipped)
    func noAction(from: OrderStatus, to: OrderStatus) async throws {
        let world = World()
        await world.stage(to)
        try await world.transition(from, to)
        #expect(world.tracking.calls.isEmpty)
        #expect(await world.store.storedLegs.isEmpty)
        #expect(await world.status() == to)
    }

    @Test("an update without a row before is refused")
    func malformed() async throws {
        let world = World()
        await #expect(throws: FunctionsError.self) {
            try await world.updateOrderStatus.handle(makeCreateChange(world.order(.new)), context: .testing())
        }
    }
}
