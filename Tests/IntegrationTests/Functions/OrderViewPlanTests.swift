import EmbeddedPostgres
import Foundation
import PostgresNIO
import Testing

@testable import Functions

/// ``M0033OrderViewPlans``: `order_view_documents` reads what the statement it replaced read, for every kind of
/// caller, and keeps its generic plan.
@Suite("Functions: the order view's read keeps its generic plan", .timeLimit(.minutes(10)))
struct OrderViewPlanTests {
    static let logger = BackendHarness.logger

    /// The statement `OrderViewForCaller` ran before 0033 (`NULL` caller: the share page's, `OrderView`).
    static func before(_ order: UUID, _ caller: UUID?) -> PostgresQuery {
        """
        SELECT \(unescaped: PreparedStatements.orderViewColumns) FROM orders o LEFT JOIN users d ON d.id = o.driver_id
        WHERE o.id = \(order) AND (\(caller)::uuid IS NULL OR o.rider_id = \(caller) OR o.driver_id = \(caller)
            OR (o.status = 'NEW' AND EXISTS (
                SELECT 1 FROM order_offers f WHERE f.order_id = o.id AND f.driver_id = \(caller))))
        """
    }

    @Test("the rider, the driver, an offered driver, a stranger and the share page each read what they read before")
    func sameDocuments() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let (rider, driver, order) = try await OrderSchemaTests.seed(client)
            let others = try await client.query(
                """
                WITH o AS (INSERT INTO users (role, name, phone, device_id, available)
                           VALUES ('driver', 'Olu', '+4932', 'D2', true) RETURNING id),
                     s AS (INSERT INTO users (role, name, phone) VALUES ('rider', 'Sam', '+4933') RETURNING id),
                     f AS (INSERT INTO order_offers (order_id, driver_id, rank, expires_at)
                           SELECT \(order), id, 1, now() + interval '1 minute' FROM o)
                SELECT (SELECT id FROM o), (SELECT id FROM s)
                """,
                logger: Self.logger
            ).collect().map { try $0.decode((UUID, UUID).self) }
            let (offered, stranger) = try #require(others.first)

            func read(_ caller: UUID?) async throws -> (new: [String], old: [String]) {
                let new = try await client.query(
                    """
                    SELECT order_document, driver_document, legs_document
                    FROM order_view_documents(\(order), \(caller))
                    """,
                    logger: Self.logger
                ).collect().map { row in
                    let (order, driver, legs) = try row.decode((String, String?, String).self)
                    return [order, driver ?? "null", legs]
                }
                let old = try await client.query(Self.before(order, caller), logger: Self.logger).collect().map { row in
                    let (order, driver, legs) = try row.decode((String, String?, String).self)
                    return [order, driver ?? "null", legs]
                }
                return (new.flatMap { $0 }, old.flatMap { $0 })
            }

            // NEW: the rider, the offered driver and the share page see it; the driver (not offered) and a
            // stranger do not.
            for (caller, sees) in [(rider, true), (offered, true), (nil, true), (driver, false), (stranger, false)] {
                let (new, old) = try await read(caller)
                #expect(new == old, "\(String(describing: caller))")
                #expect(new.isEmpty == !sees, "\(String(describing: caller))")
            }
            // Accepted, with a leg: the driver and rider see it, with the driver and the leg; the offered one no more.
            try await client.query(
                """
                UPDATE orders SET status = 'ACCEPTED', driver_id = \(driver) WHERE id = \(order);
                """,
                logger: Self.logger
            )
            try await client.query(
                """
                INSERT INTO order_legs (order_id, leg, device_id, trip_id, estimate_route)
                VALUES (\(order), 'pickup', 'D1', 'T1', '[[13.4, 52.5], [13.41, 52.51]]')
                """,
                logger: Self.logger
            )
            for (caller, sees) in [(rider, true), (driver, true), (nil, true), (offered, false), (stranger, false)] {
                let (new, old) = try await read(caller)
                #expect(new == old, "\(String(describing: caller))")
                #expect(new.isEmpty == !sees, "\(String(describing: caller))")
                if sees { #expect(new[1] != "null" && new[2].contains("T1")) }
            }

            // The function keeps the generic plan, whatever the plan cache would prefer.
            let settings = try await client.query(
                "SELECT array_to_string(proconfig, ',') FROM pg_proc WHERE proname = 'order_view_documents'",
                logger: Self.logger
            ).collect().map { try $0.decode(String?.self) }
            #expect(settings == ["plan_cache_mode=force_generic_plan"])
        }
    }
}
