import Foundation
import Logging
import Functions
import FunctionsTesting
import HyperTrackAPI
import Testing
import TriggerRuntime

@Suite("onTripWebhook")
struct OnTripWebhookTests {
    static let tariff = Tariff(currency: "EUR", base: 250, perKilometre: 120, perMinute: 30, minimum: 500)

    func function(_ world: World) -> OnTripWebhook {
        OnTripWebhook(tracking: world.tracking, stores: world.store.factory, tariff: Self.tariff)
    }

    func deliver(_ world: World, _ event: WebhookEventRow) async throws {
        try await world.store.run(self.function(world), makeCreateChange(event), context: .testing(eventID: event.id))
    }

    func tripEvent(_ id: Int64, _ value: String, trip: String, summary: LegSummary? = nil) -> WebhookEventRow {
        WebhookEventRow(
            id: id,
            messageID: "m-\(id)",
            eventIndex: 0,
            type: "trip",
            value: value,
            deviceID: "DEVICE-1",
            tripID: trip,
            recordedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(id)),
            summary: summary
        )
    }

    @Test("destination_arrival of the pickup trip moves PICKING_UP → REACHED_PICKUP and records the arrival")
    func pickupArrival() async throws {
        let world = World()
        await world.stage(.pickingUp)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip())
        try await self.deliver(world, self.tripEvent(1, "destination_arrival", trip: "T-1"))
        #expect(await world.status() == .reachedPickup)
        #expect(await world.leg(.pickup)?.arrivedAt == Date(timeIntervalSince1970: 1_800_000_001))
        #expect(await world.store.webhookOutcome(eventID: 1) == "applied: PICKING_UP -> REACHED_PICKUP")
    }

    @Test("destination_arrival of the dropoff trip moves DROPPING_OFF → REACHED_DROPOFF")
    func dropoffArrival() async throws {
        let world = World()
        await world.stage(.droppingOff)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip(), status: .completed)
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: world.trip(id: "T-2", leg: .dropoff))
        try await self.deliver(world, self.tripEvent(1, "destination_arrival", trip: "T-2"))
        #expect(await world.status() == .reachedDropoff)
    }

    @Test("a repeated arrival changes nothing and keeps the first arrival time")
    func repeatedArrival() async throws {
        let world = World()
        await world.stage(.pickingUp)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip())
        try await self.deliver(world, self.tripEvent(1, "destination_arrival", trip: "T-1"))
        try await self.deliver(world, self.tripEvent(2, "destination_arrival", trip: "T-1"))
        #expect(await world.status() == .reachedPickup)
        #expect(await world.leg(.pickup)?.arrivedAt == Date(timeIntervalSince1970: 1_800_000_001))
        #expect(await world.store.webhookOutcome(eventID: 2) == "ignored: order is REACHED_PICKUP, not PICKING_UP")
    }

    @Test("a late pickup arrival during the ride never moves the order (backwards or to REACHED_DROPOFF)")
    func lateArrival() async throws {
        let world = World()
        await world.stage(.droppingOff)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip(), status: .completed)
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: world.trip(id: "T-2", leg: .dropoff))
        try await self.deliver(world, self.tripEvent(1, "destination_arrival", trip: "T-1"))
        #expect(await world.status() == .droppingOff)
    }

    @Test(
        "an arrival after the order was completed or cancelled is ignored",
        arguments: [
            OrderStatus.completed, .cancelled,
        ]
    )
    func arrivalAfterEnd(status: OrderStatus) async throws {
        let world = World()
        await world.stage(status)
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: world.trip(id: "T-2", leg: .dropoff))
        try await self.deliver(world, self.tripEvent(1, "destination_arrival", trip: "T-2"))
        #expect(await world.status() == status)
    }

    @Test("events for unknown trips are recorded as ignored", arguments: ["destination_arrival", "completed"])
    func unknownTrip(value: String) async throws {
        let world = World()
        await world.stage(.pickingUp)
        try await self.deliver(world, self.tripEvent(7, value, trip: "NOT-OURS"))
        #expect(await world.store.webhookOutcome(eventID: 7) == "ignored: unknown trip")
        #expect(await world.status() == .pickingUp)
        #expect(world.tracking.calls.isEmpty)
    }

    @Test(
        "completed stores the leg's summary; the dropoff summary of a COMPLETED order sets the order summary and fare"
    )
    func summaryAndFare() async throws {
        let world = World()
        await world.stage(.completed)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip(), status: .completed)
        await world.store.addLeg(
            orderID: world.orderID,
            kind: .dropoff,
            trip: world.trip(id: "T-2", leg: .dropoff),
            status: .completing
        )
        let pickup = LegSummary(distance: 1500, duration: 300, route: [[13.40, 52.52], [13.41, 52.52]])
        let dropoff = LegSummary(distance: 4200, duration: 900)
        try await self.deliver(world, self.tripEvent(1, "completed", trip: "T-1", summary: pickup))
        #expect(await world.store.summary(ofOrder: world.orderID) == nil, "no fare before the ride's summary")
        try await self.deliver(world, self.tripEvent(2, "completed", trip: "T-2", summary: dropoff))

        #expect(await world.leg(.pickup)?.record.summary == pickup)
        #expect(await world.leg(.dropoff)?.record.status == .completed)
        let summary = try #require(await world.store.summary(ofOrder: world.orderID))
        #expect(summary.pickup == .init(distance: 1500, duration: 300))
        #expect(summary.dropoff == .init(distance: 4200, duration: 900))
        #expect(summary.totalDistance == 5700)
        #expect(summary.totalDuration == 1200)
        // 250 + 120 × 4.2 + 30 × 15 = 250 + 504 + 450
        #expect(summary.fare == .init(amount: 1204, currency: "EUR"))
    }

    @Test("a pickup summary arriving after the dropoff's completes the order summary; the fare is unchanged")
    func outOfOrderSummaries() async throws {
        let world = World()
        await world.stage(.completed)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip(), status: .completed)
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: world.trip(id: "T-2", leg: .dropoff))
        try await self.deliver(
            world,
            self.tripEvent(1, "completed", trip: "T-2", summary: .init(distance: 100, duration: 60))
        )
        let first = try #require(await world.store.summary(ofOrder: world.orderID))
        #expect(first.pickup == nil)
        #expect(first.fare.amount == 500, "the minimum fare")
        try await self.deliver(
            world,
            self.tripEvent(2, "completed", trip: "T-1", summary: .init(distance: 900, duration: 120))
        )
        let second = try #require(await world.store.summary(ofOrder: world.orderID))
        #expect(second.pickup == .init(distance: 900, duration: 120))
        #expect(second.totalDistance == 1000)
        #expect(second.fare == first.fare)
    }

    @Test("a cancelled order's legs get summaries but the order gets no fare")
    func cancelledNoFare() async throws {
        let world = World()
        await world.stage(.cancelled)
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: world.trip(id: "T-2", leg: .dropoff))
        try await self.deliver(
            world,
            self.tripEvent(1, "completed", trip: "T-2", summary: .init(distance: 100, duration: 60))
        )
        #expect(await world.leg(.dropoff)?.record.summary != nil)
        #expect(await world.store.summary(ofOrder: world.orderID) == nil)
    }

    @Test("a completed event without a summary reads the trip from HyperTrack")
    func summaryFetched() async throws {
        let world = World()
        await world.stage(.completed)
        var trip = world.trip(id: "T-2", leg: .dropoff)
        trip.status = .completed
        trip.summary = TripSummary(distance: 2000, duration: 600)
        world.tracking.seed(trip)
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: trip)
        try await self.deliver(world, self.tripEvent(1, "completed", trip: "T-2"))
        #expect(world.tracking.calls == [.trip(id: "T-2")])
        #expect(await world.store.summary(ofOrder: world.orderID)?.dropoff == .init(distance: 2000, duration: 600))
    }

    @Test("HyperTrack failing to return the summary throws; nothing is written")
    func summaryFetchFails() async throws {
        let world = World()
        await world.stage(.completed)
        world.tracking.seed(world.trip(id: "T-2", leg: .dropoff))
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: world.trip(id: "T-2", leg: .dropoff))
        world.tracking.fail(.trip)
        await #expect(throws: FakeTripTrackingError.scripted) {
            try await self.deliver(world, self.tripEvent(1, "completed", trip: "T-2"))
        }
        #expect(await world.store.webhookOutcome(eventID: 1) == nil)
    }

    @Test("a completed trip whose summary is not ready yet is recorded as such")
    func summaryNotReady() async throws {
        let world = World()
        await world.stage(.completed)
        world.tracking.seed(world.trip(id: "T-2", leg: .dropoff))
        await world.store.addLeg(orderID: world.orderID, kind: .dropoff, trip: world.trip(id: "T-2", leg: .dropoff))
        try await self.deliver(world, self.tripEvent(1, "completed", trip: "T-2"))
        #expect(await world.store.webhookOutcome(eventID: 1) == "ignored: completed trip has no summary yet")
    }

    func location(_ id: Int64, device: String = "DEVICE-1", at seconds: Double) -> WebhookEventRow {
        WebhookEventRow(
            id: id,
            messageID: "m-\(id)",
            eventIndex: 0,
            type: "location",
            deviceID: device,
            latitude: 52.5 + Double(id) / 1000,
            longitude: 13.4,
            recordedAt: Date(timeIntervalSince1970: seconds)
        )
    }

    @Test("location events move the driver; an older one arriving late does not")
    func locations() async throws {
        let world = World()
        await world.stage(.new, driver: false)
        await world.store.advance(by: .seconds(100_000_010))
        try await self.deliver(world, self.location(2, at: 1_900_000_002))
        try await self.deliver(world, self.location(1, at: 1_900_000_001))
        let position = try #require(await world.store.driver(id: world.driverID)?.position)
        #expect(position.latitude == 52.502)
        #expect(position.recordedAt == Date(timeIntervalSince1970: 1_900_000_002))
        #expect(await world.store.webhookOutcome(eventID: 2) == "applied: position")
        #expect(
            await world.store.webhookOutcome(eventID: 1) == "ignored: unknown device or a newer position is recorded"
        )
    }

    @Test("a position dated in the future is recorded as of now and cannot pin the driver")
    func futurePosition() async throws {
        let world = World()
        await world.stage(.new, driver: false)
        let now = await world.store.now.timeIntervalSince1970
        try await self.deliver(world, self.location(1, at: now + 3600))
        let pinned = try #require(await world.store.driver(id: world.driverID)?.position)
        #expect(pinned.recordedAt == Date(timeIntervalSince1970: now), "clamped to the store's now")
        await world.store.advance(by: .seconds(5))
        try await self.deliver(world, self.location(2, at: now + 4))
        let moved = try #require(await world.store.driver(id: world.driverID)?.position)
        #expect(moved.latitude == 52.502, "a later real report replaces it")
        #expect(await world.store.webhookOutcome(eventID: 2) == "applied: position")
    }

    @Test("device_status events record whether the device tracks; an older one arriving late does not")
    func deviceStatus() async throws {
        let world = World()
        await world.stage(.new, driver: false)
        let now = await world.store.now
        func status(_ id: Int64, _ value: String, _ at: Date) -> WebhookEventRow {
            WebhookEventRow(
                id: id, messageID: "m-\(id)", eventIndex: 0, type: "device_status", value: value, deviceID: "DEVICE-1",
                recordedAt: at
            )
        }
        try await self.deliver(world, status(1, "inactive", now))
        #expect(await world.store.driver(id: world.driverID)?.deviceStatus?.value == "inactive")
        #expect(await world.store.webhookOutcome(eventID: 1) == "applied: device inactive")
        try await self.deliver(world, status(2, "active", now - 10))
        #expect(await world.store.driver(id: world.driverID)?.deviceStatus?.value == "inactive", "older")
        try await self.deliver(world, status(3, "sleeping", now))
        #expect(await world.store.webhookOutcome(eventID: 3) == "ignored: device_status sleeping is not a tracking state")
    }

    @Test("location events of unknown devices or without a position are ignored")
    func badLocations() async throws {
        let world = World()
        await world.stage(.new, driver: false)
        try await self.deliver(world, self.location(1, device: "STRANGER", at: 1_900_000_000))
        var event = self.location(2, at: 1_900_000_000)
        event.latitude = nil
        try await self.deliver(world, event)
        #expect(
            await world.store.webhookOutcome(eventID: 1) == "ignored: unknown device or a newer position is recorded"
        )
        #expect(await world.store.webhookOutcome(eventID: 2) == "ignored: location without device, position or time")
    }

    @Test(
        "events we do not handle are recorded as ignored",
        arguments: [
            ("battery", "low"), ("trip", "geofence_enter"), ("trip", "created"),
        ]
    )
    func unhandled(type: String, value: String) async throws {
        let world = World()
        let event = WebhookEventRow(id: 3, messageID: "m", eventIndex: 0, type: type, value: value)
        try await self.deliver(world, event)
        #expect(await world.store.webhookOutcome(eventID: 3) == "ignored: \(type)/\(value) is not handled")
    }

    /// `onTripWebhook` with replays: `ReplayWebhookEvent` on in-memory timers whose clock starts with the store's.
    func replaying(_ world: World) async -> (OnTripWebhook, InMemoryTimers) {
        var registry = FunctionRegistry()
        registry.register(
            ReplayWebhookEvent(tracking: world.tracking, stores: world.store.factory, tariff: Self.tariff, timers: world.timers)
        )
        let timers = InMemoryTimers(registry: registry, now: await world.store.now, logger: Logger(label: "t"))
        await world.timers.connect(timers)
        let function = OnTripWebhook(
            tracking: world.tracking, stores: world.store.factory, tariff: Self.tariff, timers: world.timers
        )
        return (function, timers)
    }

    /// A world at `stage` with replays, and an arrival (event 1, for trip `trip`) delivered before its leg exists.
    func arrivalWaiting(at stage: OrderStatus, trip: String) async throws -> (World, OnTripWebhook, InMemoryTimers) {
        let world = World()
        await world.stage(stage)
        let (function, timers) = await self.replaying(world)
        let arrival = self.tripEvent(1, "destination_arrival", trip: trip)
        await world.store.addWebhookEvent(arrival)
        try await world.store.run(function, makeCreateChange(arrival), context: .testing(eventID: 1))
        return (world, function, timers)
    }

    @Test("an arrival before its leg is recorded waits and is applied once the leg exists; one that never finds it gives up")
    func arrivalBeforeTheLeg() async throws {
        let (world, function, timers) = try await self.arrivalWaiting(at: .pickingUp, trip: "T-1")
        #expect(await world.store.webhookOutcome(eventID: 1) == "waiting: unknown trip (replay 1 in 1 s)")
        #expect(await world.status() == .pickingUp)
        try await timers.advance(by: .seconds(1))
        #expect(await world.store.webhookOutcome(eventID: 1) == "waiting: unknown trip (replay 2 in 2 s)")
        // The accept's transaction commits: the leg is recorded.
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip())
        try await timers.advance(by: .seconds(2))
        #expect(await world.store.webhookOutcome(eventID: 1) == "applied: PICKING_UP -> REACHED_PICKUP")
        #expect(await world.status() == .reachedPickup)
        #expect(await timers.pendingTimers.isEmpty)

        // A completion for a trip that never appears: replays back off to a minute, then it is ignored.
        let stray = self.tripEvent(2, "completed", trip: "T-NEVER")
        await world.store.addWebhookEvent(stray)
        try await world.store.run(function, makeCreateChange(stray), context: .testing(eventID: 2))
        try await timers.advance(by: OnTripWebhook.waitingWindow + .seconds(60))
        #expect(await world.store.webhookOutcome(eventID: 2)?.hasPrefix("ignored: unknown trip after waiting") == true)
        #expect(await timers.pendingTimers.isEmpty)
    }

    @Test(
        "an arrival before its leg is replayed as soon as the transaction recording the leg commits, not at its next step"
    )
    func arrivalReplayedWhenTheLegIsRecorded() async throws {
        // The fake's first trip: the one the accept below creates.
        let (world, _, timers) = try await self.arrivalWaiting(at: .accepted, trip: "trip-0001")
        try await timers.advance(by: .seconds(1))
        #expect(await world.store.webhookOutcome(eventID: 1) == "waiting: unknown trip (replay 2 in 2 s)")

        // A failure reading the waiting events rolls the accept's whole transaction back: no leg, no replay moved.
        let update = UpdateOrderStatus(
            tracking: world.tracking, stores: world.store.factory, destinationRadius: 100, timers: world.timers
        )
        let accepted = makeChange(before: world.order(.new), after: world.order(.accepted))
        await world.store.fail(.waitingWebhookEvents)
        await #expect(throws: InMemoryRideStoreError.self) {
            try await world.store.run(update, accepted, context: .testing())
        }
        #expect(await world.leg(.pickup) == nil)
        #expect(await world.status() == .accepted)
        #expect(await timers.pendingTimers.map(\.dueAt) == [await timers.now.addingTimeInterval(2)])

        // The retry records the leg (adopting the trip the failed attempt made) and moves the replay to now.
        try await world.store.run(update, accepted, context: .testing(attempt: 2))
        #expect(await world.leg(.pickup)?.record.tripID == "trip-0001")
        #expect(await timers.pendingTimers.map(\.dueAt) == [await timers.now])
        let moved = try JSONDecoder().decode(
            ReplayWebhookEvent.Payload.self, from: try #require(await timers.pendingTimers.first?.payload))
        #expect(moved.eventID == 1 && moved.attempt == 2, "the replay keeps its number: \(moved)")
        try await timers.advance(by: .zero)
        #expect(await world.store.webhookOutcome(eventID: 1) == "applied: PICKING_UP -> REACHED_PICKUP")
        #expect(await world.status() == .reachedPickup)
        #expect(await timers.pendingTimers.isEmpty)
    }

    @Test("a replay set before the event was applied (read while another replay ran) skips it: the outcome stays applied")
    func staleReplaySkipsAHandledEvent() async throws {
        let (world, _, timers) = try await self.arrivalWaiting(at: .pickingUp, trip: "T-1")
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip())
        try await timers.advance(by: .seconds(1))
        #expect(await world.store.webhookOutcome(eventID: 1) == "applied: PICKING_UP -> REACHED_PICKUP")

        // The replay the leg's transaction set from the waiting outcome it read before the first replay committed.
        let replay = ReplayWebhookEvent(
            tracking: world.tracking, stores: world.store.factory, tariff: Self.tariff, timers: world.timers
        )
        let stale = TimerFiring(
            documentKey: "T-1", key: "event-1", dueAt: await timers.now,
            payload: ReplayWebhookEvent.Payload(eventID: 1, attempt: 1)
        )
        try await replay.fire(stale, context: .testing())
        #expect(await world.store.webhookOutcome(eventID: 1) == "applied: PICKING_UP -> REACHED_PICKUP")
        #expect(await world.status() == .reachedPickup)

        // An event not handled yet (or with an outcome this release does not know) is handled: never lost.
        let unknown = self.tripEvent(2, "destination_arrival", trip: "T-1")
        await world.store.addWebhookEvent(unknown)
        try await world.store.setWebhookOutcome(eventID: 2, outcome: "pending: a format of another release")
        try await replay.fire(
            TimerFiring(
                documentKey: "T-1", key: "event-2", dueAt: await timers.now,
                payload: ReplayWebhookEvent.Payload(eventID: 2, attempt: 1)
            ),
            context: .testing()
        )
        #expect(await world.store.webhookOutcome(eventID: 2) == "ignored: order is REACHED_PICKUP, not PICKING_UP")
    }

    @Test("a waiting outcome names its replay; no other outcome does")
    func replayNamed() {
        #expect(OnTripWebhook.replay(named: "waiting: unknown trip (replay 3 in 4 s)") == 3)
        #expect(OnTripWebhook.replay(named: "waiting: unknown trip (replay 12 in 60 s)") == 12)
        #expect(OnTripWebhook.replay(named: "applied: PICKING_UP -> REACHED_PICKUP") == nil)
        #expect(OnTripWebhook.replay(named: "waiting: unknown trip") == nil)
        #expect(OnTripWebhook.isFinal("applied: PICKING_UP -> REACHED_PICKUP"))
        #expect(OnTripWebhook.isFinal(OnTripWebhook.unhandledOutcome(type: "battery", value: "low")))
        #expect(!OnTripWebhook.isFinal("waiting: unknown trip (replay 3 in 4 s)"))
    }

    @Test("a store failure rolls the whole event back; the retry applies it once")
    func retryAfterFailure() async throws {
        let world = World()
        await world.stage(.pickingUp)
        await world.store.addLeg(orderID: world.orderID, kind: .pickup, trip: world.trip())
        await world.store.fail(.setWebhookOutcome)
        await #expect(throws: InMemoryRideStoreError.self) {
            try await self.deliver(world, self.tripEvent(1, "destination_arrival", trip: "T-1"))
        }
        #expect(await world.status() == .pickingUp)
        #expect(await world.leg(.pickup)?.arrivedAt == nil)
        try await self.deliver(world, self.tripEvent(1, "destination_arrival", trip: "T-1"))
        #expect(await world.status() == .reachedPickup)
    }
}
