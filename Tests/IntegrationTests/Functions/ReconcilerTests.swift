import Foundation
import Functions
import HyperTrackAPI
import HyperTrackEmulator
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing
import TriggerRuntime

/// Webhooks are a hint, HyperTrack's state is the truth: with the emulator dropping every webhook, the reconciler
/// alone carries a ride through its arrivals and its summary. The clock is moved, not waited for: the legs' times go
/// back an hour and the reconciler's schedule falls due now.
@Suite("Functions: reconciliation when HyperTrack's webhooks never come", .timeLimit(.minutes(10)))
struct ReconcilerTests {
    /// Makes every leg overdue and the reconciler's next tick due now, and wakes the workers.
    static func reconcileNow(_ h: RideHarness) async throws {
        for statement in [
            """
            UPDATE order_legs SET eta = eta - interval '1 hour', created_at = created_at - interval '1 hour',
                completed_at = completed_at - interval '1 hour', checked_at = NULL
            """,
            "UPDATE trigger_runtime.schedules SET next_run_at = now() WHERE function_name = 'reconcileTrips'",
            "SELECT pg_notify('\(TriggerRuntime.Configuration.defaultChannel)', '')",
        ] {
            try await h.client.query(PostgresQuery(unsafeSQL: statement), logger: BackendHarness.logger)
        }
    }

    /// Advances the emulator until its trip `tripID` has arrived (no webhook tells us: we ask the emulator).
    static func driveUntilArrived(_ emulator: HyperTrackEmulator, _ tracking: HyperTrackClient, trip tripID: String)
        async throws
    {
        for _ in 0..<120 {
            if try await tracking.trip(id: tripID).destination?.arrivedAt != nil { return }
            await emulator.advanceClock(by: 30)
        }
        throw RideHarness.TimedOut(what: "the emulator's device to arrive")
    }

    @Test("with 100% of webhooks dropped, a ride still reaches COMPLETED with its summary and fare")
    func everyWebhookDropped() async throws {
        let configuration = Backend.Configuration(webhook: .init(secret: EmulatorRideTests.secret))
        try await EmulatorRideTests.withEmulatorBackend(configuration) { h, emulator, tracking in
            await emulator.registerDevice(id: "DEV-R", name: "phone", longitude: 13.405, latitude: 52.523)
            let rider = try await h.api.rider()
            let driver = try await h.api.driver(device: "DEV-R")
            // The phone's position reaches us once (a delivery of our own), then HyperTrack goes silent.
            try await h.webhook([
                RideHarness.locationEvent(device: "DEV-R", lat: 52.523, lng: 13.405, at: RideHarness.nowText())
            ])
            try await h.eventually("the driver is on the map") {
                try await h.api.send(.GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: rider.token)
                    .json["drivers"].arrayValue.count == 1
            }
            try await emulator.addFault(.dropWebhooks())

            let order = try #require(
                try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token).json["id"].stringValue
            )
            try await h.eventually("offered") {
                try await h.api.send(.GET, "/v1/offers", token: driver.token).json["offers"].arrayValue.count == 1
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/accept", token: driver.token).status == 200)
            try await h.eventually("PICKING_UP") { try await h.order(order, token: rider.token)["status"] == "PICKING_UP" }
            let pickupTrip = try #require(try await h.order(order, token: rider.token)["live_leg"]["trip_id"].stringValue)

            try await Self.driveUntilArrived(emulator, tracking, trip: pickupTrip)
            try await Self.reconcileNow(h)
            try await h.eventually("REACHED_PICKUP, from the reconciler") {
                try await h.order(order, token: rider.token)["status"] == "REACHED_PICKUP"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/start", token: driver.token).status == 200)
            try await h.eventually("DROPPING_OFF") {
                try await h.order(order, token: rider.token)["status"] == "DROPPING_OFF"
            }
            let dropoffTrip = try #require(
                try await h.order(order, token: rider.token)["live_leg"]["trip_id"].stringValue
            )
            try await Self.driveUntilArrived(emulator, tracking, trip: dropoffTrip)
            try await Self.reconcileNow(h)
            try await h.eventually("REACHED_DROPOFF, from the reconciler") {
                try await h.order(order, token: rider.token)["status"] == "REACHED_DROPOFF"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/complete", token: driver.token).status == 200)
            try await h.eventually("both trips completed on HyperTrack") {
                let legs = try await h.order(order, token: rider.token)["legs"].arrayValue
                return legs.count == 2 && legs.allSatisfy { $0["status"] == "completed" }
            }
            await emulator.advanceClock(by: 30)
            try await Self.reconcileNow(h)
            try await h.eventually("the summary and fare, from the reconciler") {
                try await h.order(order, token: rider.token)["summary"]["fare"] != .null
            }
            let summary = try await h.order(order, token: rider.token)["summary"]
            #expect((summary["dropoff"]["distance"].doubleValue ?? 0) > 1000)
            #expect(
                try await Self.count(h, "SELECT count(*)::int FROM webhook_events WHERE type = 'trip'") == 0,
                "no trip event came: the arrivals and the summary are the reconciler's"
            )
            #expect(try await Self.count(h, "SELECT count(*)::int FROM order_legs WHERE checked_at IS NOT NULL") >= 1)
        }
    }

    @Test("HyperTrack answering 503 for 30 minutes of emulated time: the ride resumes when it recovers, one trip per leg")
    func outage() async throws {
        let configuration = Backend.Configuration(webhook: .init(secret: EmulatorRideTests.secret))
        try await EmulatorRideTests.withEmulatorBackend(configuration) { h, emulator, tracking in
            await emulator.registerDevice(id: "DEV-O", name: "phone", longitude: 13.405, latitude: 52.523)
            let rider = try await h.api.rider()
            let driver = try await h.api.driver(device: "DEV-O")
            try await h.webhook([
                RideHarness.locationEvent(device: "DEV-O", lat: 52.523, lng: 13.405, at: RideHarness.nowText())
            ])
            try await h.eventually("the driver is on the map") {
                try await h.api.send(.GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: rider.token)
                    .json["drivers"].arrayValue.count == 1
            }
            try await emulator.addFault(.httpError(status: 503, method: "POST", path: "/trips").lasting(seconds: 1800))
            let order = try #require(
                try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token).json["id"].stringValue
            )
            try await h.eventually("offered") {
                try await h.api.send(.GET, "/v1/offers", token: driver.token).json["offers"].arrayValue.count == 1
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/accept", token: driver.token).status == 200)
            try await h.eventually("the trip's creation failed twice") {
                try await Self.count(
                    h,
                    """
                    SELECT coalesce(max(attempt), 0)::int FROM trigger_runtime.deliveries
                    WHERE function_name = 'updateOrderStatus' AND last_error IS NOT NULL
                    """
                ) >= 2
            }
            #expect(try await h.order(order, token: rider.token)["status"] == "ACCEPTED")
            // Half an hour of HyperTrack time passes; the runtime's next retry (its backoff moved to now) succeeds.
            await emulator.advanceClock(by: 1800)
            for statement in [
                """
                UPDATE trigger_runtime.deliveries SET run_after = now()
                WHERE function_name = 'updateOrderStatus' AND status = 'ready' AND lease_token IS NULL
                """,
                "SELECT pg_notify('\(TriggerRuntime.Configuration.defaultChannel)', '')",
            ] {
                try await h.client.query(PostgresQuery(unsafeSQL: statement), logger: BackendHarness.logger)
            }
            try await h.eventually("PICKING_UP once HyperTrack recovered") {
                try await h.order(order, token: rider.token)["status"] == "PICKING_UP"
            }
            let adapter = HyperTrackTripTracking(client: tracking, logger: BackendHarness.logger)
            #expect(try await adapter.activeTrips(deviceID: "DEV-O").count == 1, "one trip for the pickup leg")
            #expect(try await Self.count(h, "SELECT count(*)::int FROM trigger_runtime.deliveries WHERE status = 'dead'") == 0)
        }
    }

    static func count(_ h: RideHarness, _ query: PostgresQuery) async throws -> Int {
        for try await value in try await h.client.query(query, logger: BackendHarness.logger).decode(Int.self) {
            return value
        }
        return -1
    }
}
