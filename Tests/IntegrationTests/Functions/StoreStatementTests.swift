import EmbeddedPostgres
import Foundation
@testable import Functions
import Logging
import PostgresNIO
import Testing

/// The stores' hot statements are prepared once per connection (`StoreStatements`, 25th session).
@Suite("Functions: the stores' prepared statements", .timeLimit(.minutes(10)))
struct StoreStatementTests {
    static let logger = BackendHarness.logger

    /// The generic and custom plans `connection` made of its prepared statements whose names match any of the
    /// `LIKE` patterns, by name.
    static func plans(
        on connection: PostgresConnection,
        named patterns: [String]
    ) async throws -> [String: (generic: Int64, custom: Int64)] {
        let rows = try await connection.query(
            """
            SELECT name, generic_plans, custom_plans FROM pg_prepared_statements
            WHERE name LIKE ANY(\(patterns)) ORDER BY name
            """,
            logger: Self.logger
        )
        var plans: [String: (generic: Int64, custom: Int64)] = [:]
        for try await (name, generic, custom) in rows.decode((String, Int64, Int64).self) {
            plans[name] = (generic, custom)
        }
        return plans
    }

    @Test("the events waiting for a trip's leg: that trip's, with a waiting outcome, oldest first")
    func waitingWebhookEvents() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let rows: [(trip: String, outcome: String?)] = [
                ("T-1", "waiting: unknown trip (replay 3 in 4 s)"), ("T-1", "applied: PICKING_UP -> REACHED_PICKUP"),
                ("T-2", "waiting: unknown trip (replay 1 in 1 s)"), ("T-1", nil),
                ("T-1", "waiting: unknown trip (replay 1 in 1 s)"),
                ("T-1", "ignored: unknown trip after waiting 540 s for its leg"),
            ]
            for (index, row) in rows.enumerated() {
                try await client.query(
                    """
                    INSERT INTO webhook_events
                        (message_id, event_index, type, value, trip_id, payload, outcome, content_key, ordering_key)
                    VALUES ('m', \(index), 'trip', 'destination_arrival', \(row.trip), '{}', \(row.outcome),
                            \("key-\(index)"), \("trip:\(row.trip)"))
                    """,
                    logger: Self.logger
                )
            }
            var ids: [Int64] = []
            for try await id in try await client.query("SELECT id FROM webhook_events ORDER BY id", logger: Self.logger)
                .decode(Int64.self)
            {
                ids.append(id)
            }
            let store = PostgresRideStore(executor: client, logger: Self.logger)
            let waiting = try await store.waitingWebhookEvents(tripID: "T-1")
            #expect(waiting.map(\.id) == [ids[0], ids[4]])
            #expect(waiting.map(\.outcome) == [rows[0].outcome, rows[4].outcome])
            // An event as a replay reads it carries its outcome (a replay of one already handled does nothing).
            for (index, id) in ids.enumerated() {
                #expect(try await store.webhookEvent(id: id)?.outcome == rows[index].outcome)
            }
        }
    }

    @Test("a function's statements are prepared once per connection and settle on a generic plan")
    func preparedAndGeneric() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let (_, driver, order) = try await OrderSchemaTests.seed(client)
            let plans = try await client.withConnection { connection in
                let store = PostgresRideStore(executor: connection, logger: Self.logger)
                for _ in 0..<12 {
                    #expect(try await store.order(id: order)?.status == .new)
                    #expect(try await store.lockOrder(id: order)?.id == order)
                    #expect(try await store.deviceID(ofDriver: driver) == "D1")
                    // Writes whose conditions do not hold: they run, and change nothing.
                    #expect(try await store.moveOrder(id: order, from: .pickingUp, to: .reachedPickup) == false)
                    #expect(
                        try await store.advance(orderID: order, driverID: driver, from: .accepted, to: .pickingUp)
                            == false
                    )
                    #expect(try await store.accept(orderID: UUID(), driverID: driver, grace: .seconds(5)) == false)
                    #expect(try await store.cancel(orderID: UUID(), by: driver, reason: "none") == false)
                    #expect(try await store.leg(tripID: "no-such-trip") == nil)
                    #expect(try await store.legs(orderID: order).isEmpty)
                    #expect(try await store.markLegCompleted(id: UUID()) == false)
                    try await store.recordArrival(legID: UUID(), at: Date())
                    try await store.setWebhookOutcome(eventID: -1, outcome: "ignored")
                    #expect(try await store.waitingWebhookEvents(tripID: "no-such-trip").isEmpty)
                }
                return try await Self.plans(on: connection, named: ["functions_store_%"])
            }
            #expect(
                plans.keys.sorted() == [
                    "functions_store_accept_v1", "functions_store_advance_v2", "functions_store_cancel_v1",
                    "functions_store_driver_device_v1", "functions_store_legs_of_order_v1",
                    "functions_store_legs_of_trip_v1", "functions_store_locked_order_v1",
                    "functions_store_mark_leg_completed_v1", "functions_store_move_v1", "functions_store_order_v1",
                    "functions_store_record_arrival_v1", "functions_store_waiting_webhook_events_v1",
                    "functions_store_webhook_outcome_v1",
                ]
            )
            for (name, plan) in plans {
                // Planned for its values the first five times, then the generic plan: a statement planned at every
                // call would show 12 custom plans.
                #expect(plan.custom <= 5 && plan.generic >= 7, "\(name): \(plan)")
            }
            // The order is as it was.
            #expect(try await PostgresRideStore(executor: client, logger: Self.logger).order(id: order)?.status == .new)
        }
    }

    /// The API's writes that answer with the order's view are plain prepared statements, not a function with a
    /// forced generic plan as the view's read is (``M0033OrderViewPlans``: the read's cache was seen planning it at
    /// every call in one city run). Their parameters only key the write, so here the generic plan is chosen after five
    /// calls; a city run that sees otherwise would need the function's remedy.
    @Test("the API's write-and-view statements are prepared once per connection and settle on a generic plan")
    func writesWithViewsAreGeneric() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let (_, driver, order) = try await OrderSchemaTests.seed(client)
            let plans = try await client.withConnection { connection in
                let store = PostgresRideStore(executor: connection, logger: Self.logger)
                let place = OrderRow.Place(latitude: 52.52, longitude: 13.405)
                for _ in 0..<12 {
                    // Writes whose conditions do not hold (a driver cannot book; no such order): nothing changes.
                    #expect(
                        try await store.bookIfNamed(NewOrder(riderID: driver, pickup: place, dropoff: place)) == nil
                    )
                    #expect(
                        try await store.acceptWithView(orderID: UUID(), driverID: driver, grace: .seconds(5)) == nil
                    )
                    #expect(
                        try await store.advanceWithView(
                            orderID: order, driverID: driver, from: .reachedPickup, to: .startedRide
                        ) == nil
                    )
                    #expect(try await store.cancelWithView(orderID: UUID(), by: driver, reason: "none") == nil)
                }
                return try await Self.plans(on: connection, named: ["%view_v%", "functions_book_order_%"])
            }
            #expect(
                plans.keys.sorted() == [
                    "functions_book_order_v1", "functions_store_accept_view_v1", "functions_store_advance_view_v1",
                    "functions_store_cancel_view_v1",
                ]
            )
            for (name, plan) in plans {
                #expect(plan.custom <= 5 && plan.generic >= 7, "\(name): \(plan)")
            }
            let orders = try await client.query("SELECT count(*) FROM orders", logger: Self.logger)
            for try await count in orders.decode(Int.self) { #expect(count == 1) }
        }
    }
}
