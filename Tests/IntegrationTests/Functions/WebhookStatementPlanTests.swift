import EmbeddedPostgres
import Foundation
import PostgresNIO
import Testing

@testable import Functions

/// The intake's position upsert (``WebhookStatements/Positions``) as PostgreSQL runs it on a city's worth of drivers.
@Suite("Functions: the intake's position statement's plan", .timeLimit(.minutes(5)))
struct WebhookStatementPlanTests {
    static let logger = BackendHarness.logger

    /// Every node's "Rows Removed by Join Filter" in an `EXPLAIN (ANALYZE, FORMAT JSON)` plan, added up.
    static func rowsRemovedByJoinFilters(_ node: Any) -> Int {
        var total = 0
        if let object = node as? [String: Any] {
            total += object["Rows Removed by Join Filter"] as? Int ?? 0
            for (key, value) in object where key == "Plan" || key == "Plans" {
                total += Self.rowsRemovedByJoinFilters(value)
            }
        } else if let array = node as? [Any] {
            for element in array { total += Self.rowsRemovedByJoinFilters(element) }
        }
        return total
    }

    @Test("a delivery of 500 drivers finds its applied events without comparing every event with every moved driver")
    func appliedEventsWithoutCrossComparison() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            // 10,000 drivers at the centre, analysed (as autovacuum has them in a running city).
            try await client.query(
                """
                WITH d AS (
                    INSERT INTO users (role, name, phone, device_id, car_model, car_plate, available)
                    SELECT 'driver', 'Dana ' || i, '+4930' || lpad(i::text, 7, '0'), 'PLAN-' || i, 'Prius', 'B-RS 1', true
                    FROM generate_series(1, 10000) AS i
                    RETURNING id)
                INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                SELECT id, 52.52, 13.405, now() - interval '1 minute' FROM d
                """,
                logger: Self.logger
            )
            try await client.query("ANALYZE users", logger: Self.logger)
            try await client.query("ANALYZE driver_positions", logger: Self.logger)

            // A delivery of 500 drivers' newest positions, a third of them moved.
            let now = Date().timeIntervalSince1970
            let events = (0..<500).map { index in
                """
                {"event_index": \(index), "type": "location", "device_id": "PLAN-\(index * 20 + 1)", \
                "latitude": \(52.52 + (index % 3 == 0 ? 0.001 : 0)), "longitude": 13.405, "recorded_at": \(now)}
                """
            }
            let delivery = "[" + events.joined(separator: ",") + "]"

            let plan = try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: Self.logger)
                var bindings = PostgresBindings()
                bindings.append(delivery)
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + WebhookStatements.Positions.sql,
                        binds: bindings
                    ),
                    logger: Self.logger
                )
                var text = ""
                for try await line in rows.decode(String.self) { text += line }
                try await connection.query("ROLLBACK", logger: Self.logger)
                return text
            }
            let removed = Self.rowsRemovedByJoinFilters(try JSONSerialization.jsonObject(with: Data(plan.utf8)))
            // The v1 statement joined the upsert's returned drivers with the events in a nested loop: 249,500 here.
            #expect(removed <= 500, "\(plan)")

            // And the statement still answers every applied event (all 500: each is its driver's newest position).
            let applied = try await client.withConnection { connection in
                try await connection.rows(WebhookStatements.Positions(events: delivery), logger: Self.logger)
            }
            #expect(applied.sorted() == Array(0..<500))
        }
    }
}
