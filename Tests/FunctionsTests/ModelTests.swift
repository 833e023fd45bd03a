import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import Testing
import TriggerRuntime

@Suite("Order state machine, tariff, rows and backend wiring")
struct ModelTests {
    @Test("the state machine allows exactly the ride's path and cancelling until the end")
    func stateMachine() {
        let path: [OrderStatus] = [
            .new, .accepted, .pickingUp, .reachedPickup, .startedRide, .droppingOff, .reachedDropoff, .completed,
        ]
        for (from, to) in zip(path, path.dropFirst()) { #expect(from.canMove(to: to)) }
        for status in path.dropLast() { #expect(status.canMove(to: .cancelled)) }
        #expect(!OrderStatus.completed.canMove(to: .pickingUp))
        #expect(!OrderStatus.cancelled.canMove(to: .new))
        #expect(!OrderStatus.new.canMove(to: .pickingUp))
        #expect(!OrderStatus.droppingOff.canMove(to: .completed))
        #expect(OrderStatus.completed.isFinal && OrderStatus.cancelled.isFinal && !OrderStatus.new.isFinal)
    }

    @Test("the database trigger is generated from the same table and names both states")
    func migrationText() throws {
        let migrations = Backend().migrations
        #expect(migrations.allSatisfy { $0.group == "app" })
        #expect(Set(migrations.map(\.name)).count == migrations.count)
        let sql = migrations.flatMap(\.statements).joined(separator: "\n")
        #expect(sql.contains("illegal order transition % -> %"))
        for from in OrderStatus.allCases {
            for to in from.successors { #expect(sql.contains("('\(from.rawValue)', '\(to.rawValue)')")) }
        }
        #expect(!sql.contains("('COMPLETED', "))
        #expect(sql.contains("CREATE EXTENSION IF NOT EXISTS earthdistance"))
        #expect(sql.contains("USING gist (ll_to_earth(lat, lng))"))
        #expect(sql.contains("UNIQUE (message_id, event_index)"))
    }

    @Test("fares: base + per km + per minute, rounded, never under the minimum")
    func fares() {
        let tariff = Tariff(currency: "EUR", base: 250, perKilometre: 120, perMinute: 30, minimum: 500)
        #expect(tariff.fare(distance: 10_000, duration: 1200) == 250 + 1200 + 600)
        #expect(tariff.fare(distance: 0, duration: 0) == 500)
        #expect(tariff.fare(distance: 1234, duration: 61) == 500)  // 250 + 148.08 + 30.5 = 428.58 → the minimum
        #expect(tariff.fare(distance: 4321, duration: 61) == 799)  // 250 + 518.52 + 30.5 = 799.02
        #expect(tariff.fare(distance: 5555, duration: 0) == 917)  // 250 + 666.6 = 916.6 → 917
        #expect(tariff.fare(distance: -5, duration: -5) == 500)
    }

    @Test("rows decode from PostgreSQL's to_jsonb text, timestamps and nulls included")
    func rowDecoding() throws {
        let order = """
            {"id": "5f0c4a40-7f7b-4b43-9d55-3f8a9d3c1e01", "status": "ACCEPTED",
             "rider_id": "0a9f5f8e-3a43-4c5f-9b0e-0c7d2a9e5b11", "driver_id": null,
             "pickup_lat": 52.52, "pickup_lng": 13.405, "pickup_address": null,
             "dropoff_lat": 52.5163, "dropoff_lng": 13.3777, "dropoff_address": "Tor",
             "cancellation_reason": null, "summary": null,
             "created_at": "2026-11-21T18:20:13.123456+00:00"}
            """
        let change = try makeChange(beforeJSON: nil, afterJSON: order, as: OrderRow.self)
        #expect(change.operation == .create)
        #expect(change.after?.status == .accepted)
        #expect(change.after?.driverID == nil)
        #expect(change.after?.dropoff.address == "Tor")

        let event = """
            {"before": null, "after": {"id": 9, "message_id": "m", "event_index": 2, "type": "trip",
             "value": "completed", "device_id": "D", "trip_id": "T", "latitude": null, "longitude": null,
             "recorded_at": "2026-11-21 18:20:13+00", "summary": {"distance": 10, "duration": 5, "route": [[1, 2]]},
             "payload": {}}}
            """
        let created = try makeChange(document: Data(event.utf8), as: WebhookEventRow.self)
        #expect(created.after?.summary == LegSummary(distance: 10, duration: 5, route: [[1, 2]]))
        #expect(created.after?.recordedAt == PostgresTimestamp.parse("2026-11-21T18:20:13Z"))
        #expect(throws: (any Error).self) { try makeChange(document: Data("{}".utf8), as: OrderRow.self) }
    }

    @Test("the backend registers its functions under their persisted names and triggers")
    func registry() {
        let registry = Backend().registry(tracking: FakeTripTracking())
        #expect(
            registry.functions.map(\.name.rawValue) == [
                "updateOrderStatus", "deleteOrder", "applyWebhookDelivery", "onTripWebhook", "completeTrip",
                "dispatchOrder",
                "registerDriverDevice", "offerWaitingOrders", "offerWaitingOrdersAfterRide", "dispatchRound",
                "dispatchWindow", "replayWebhookEvent",
                "pruneWebhookEvents", "reconcileTrips", "analyzeTrip", "pruneAccounts",
                "pruneOrderEvents",
            ]
        )
        #expect(
            registry.function(named: "offerWaitingOrders")?.trigger
                == .update("users", columns: ["available", "device_status"])
        )
        #expect(
            registry.function(named: "analyzeTrip")?.trigger
                == .update("order_legs", columns: ["status"]).matching("status", in: ["completed"])
        )
        #expect(
            registry.function(named: "updateOrderStatus")?.trigger
                == .update("orders", columns: ["status"])
                .matching("status", in: ["ACCEPTED", "STARTED_RIDE", "COMPLETED", "CANCELLED"])
        )
        #expect(
            registry.function(named: "offerWaitingOrdersAfterRide")?.trigger
                == .update("orders", columns: ["status"])
                .matching(#"($.status == "COMPLETED" || $.status == "CANCELLED") && $.driver_id != null"#)
        )
        #expect(registry.function(named: "applyWebhookDelivery")?.trigger == .create("webhook_receipts"))
        #expect(registry.function(named: "applyWebhookDelivery")?.options.priority == .high)
        #expect(registry.function(named: "onTripWebhook")?.options.priority == .elevated)
        #expect(registry.function(named: "replayWebhookEvent")?.options.priority == .elevated)
        #expect(registry.function(named: "updateOrderStatus")?.options.priority == .normal)
        #expect(registry.function(named: "dispatchRound")?.kind == .timer)
        #expect(registry.function(named: "dispatchWindow")?.kind == .timer)
        #expect(
            registry.function(named: "completeTrip")?.trigger
                == .update("order_legs", columns: ["status"]).matching("status", in: ["completing"])
        )
        #expect(
            registry.function(named: "onTripWebhook")?.trigger
                == Trigger.create("webhook_events", keyColumn: "ordering_key")
                .matching("value", in: ["destination_arrival", "completed"])
        )
        // What the capture function evaluates (the capture trigger's WHEN skips the other rows before it).
        #expect(
            registry.function(named: "onTripWebhook")?.trigger?.filter
                == #"$.value == "destination_arrival" || $.value == "completed""#
        )
        // Only orders whose first round has not run: the API's booking runs it and inserts the order with round 1.
        #expect(
            registry.function(named: "dispatchOrder")?.trigger == Trigger.create("orders").matching("$.dispatch_round == 0")
        )
        #expect(registry.function(named: "deleteOrder")?.trigger == .delete("orders"))
    }

    @Test("the bindings, read from the functions' types, are the registry's: installing needs no function")
    func bindings() {
        #expect(Backend.bindings == Backend().registry(tracking: FakeTripTracking()).bindings)
        #expect(Backend.bindings.first { $0.name == "completeTrip" }?.options == .hyperTrackCalls)
    }

    @Test("the Postgres store refuses to run outside a delivery's transaction")
    func postgresNeedsTransaction() {
        #expect(throws: FunctionsError.self) { try RideStoreFactory.postgres.store(for: .testing()) }
    }

    @Test("the fake streams its calls, so a test can await one")
    func fakeStream() async throws {
        let tracking = FakeTripTracking()
        let stream = tracking.callStream()
        try await tracking.updateDevice(id: "D", name: "n", metadata: nil)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .updateDevice(id: "D", name: "n", metadata: nil))
    }
}
