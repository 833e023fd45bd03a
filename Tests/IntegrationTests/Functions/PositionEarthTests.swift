import EmbeddedPostgres
import Foundation
import Functions
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

/// Migration 0023: the position indexes' expression means the same under any `search_path`.
@Suite("Functions: the position indexes under an empty search_path", .timeLimit(.minutes(10)))
struct PositionEarthTests {
    static let logger = BackendHarness.logger

    @Test("orders and positions can be analysed with an empty search_path (as autovacuum and pg_restore do)")
    func analyseWithEmptySearchPath() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let driver = try await FreeDriverIndexTests.driver(client, "analysed")
            _ = try await FreeDriverIndexTests.order(client, rider: "analysed")
            try await client.withConnection { connection in
                // What migration 0023 replaced: an index on earthdistance's ll_to_earth, whose text body does not
                // parse without `public` on the path.
                try await connection.query(
                    "CREATE TABLE scratch AS SELECT lat, lng FROM driver_positions", logger: Self.logger)
                try await connection.query(
                    "CREATE INDEX scratch_earth_idx ON scratch USING gist (ll_to_earth(lat, lng))", logger: Self.logger)
                try await connection.query("SET search_path = ''", logger: Self.logger)
                let error = await #expect(throws: PSQLError.self) {
                    try await connection.query("ANALYZE public.scratch", logger: Self.logger)
                }
                #expect(error?.serverInfo?[.message] == #"type "earth" does not exist"#)
                for table in ["public.driver_positions", "public.orders"] {
                    try await connection.query(PostgresQuery(unsafeSQL: "ANALYZE \(table)"), logger: Self.logger)
                }
                try await connection.query("RESET search_path", logger: Self.logger)
            }
            let analysed = try await client.query(
                """
                SELECT relname::text FROM pg_stat_user_tables
                WHERE relname IN ('driver_positions', 'orders') AND last_analyze IS NOT NULL ORDER BY 1
                """,
                logger: Self.logger
            )
            var tables: [String] = []
            for try await name in analysed.decode(String.self) { tables.append(name) }
            #expect(tables == ["driver_positions", "orders"])

            // The indexes still serve the queries written on position_earth, and the search still finds the driver.
            try await client.withConnection { connection in
                try await connection.query("SET enable_seqscan = off", logger: Self.logger)
                for (query, index) in [
                    (
                        """
                        EXPLAIN (COSTS OFF) SELECT p.driver_id FROM driver_positions p
                        WHERE p.online AND NOT p.busy
                          AND earth_box(position_earth(52.52, 13.405), 5000) @> position_earth(p.lat, p.lng)
                        ORDER BY position_earth(p.lat, p.lng) <-> position_earth(52.52, 13.405)
                        """,
                        "driver_positions_free_earth_idx"
                    ),
                    (
                        """
                        EXPLAIN (COSTS OFF) SELECT o.id FROM orders o
                        WHERE o.status = 'NEW'
                          AND earth_box(position_earth(52.52, 13.405), 3000)
                              @> position_earth(o.pickup_lat, o.pickup_lng)
                        """,
                        "orders_new_pickup_idx"
                    ),
                ] {
                    var plan: [String] = []
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: query), logger: Self.logger)
                    for try await line in rows.decode(String.self) { plan.append(line) }
                    #expect(plan.contains { $0.contains(index) }, "\(plan.joined(separator: "\n"))")
                }
                // The search's walk planned as migration 0024 has it, generic (its parameters unknown): the same
                // index, nearest first.
                try await connection.query("SET plan_cache_mode = force_generic_plan", logger: Self.logger)
                try await connection.query(
                    """
                    PREPARE walk(float8, float8, float8) AS SELECT p.driver_id FROM driver_positions p
                    WHERE p.online AND NOT p.busy AND earth_box(position_earth($1, $2), $3) @> position_earth(p.lat, p.lng)
                    ORDER BY position_earth(p.lat, p.lng) <-> position_earth($1, $2)
                    """,
                    logger: Self.logger
                )
                var plan: [String] = []
                let rows = try await connection.query(
                    "EXPLAIN (COSTS OFF) EXECUTE walk(52.52, 13.405, 5000)",
                    logger: Self.logger
                )
                for try await line in rows.decode(String.self) { plan.append(line) }
                let text = plan.joined(separator: "\n")
                #expect(text.contains("Index Scan using driver_positions_free_earth_idx"), "\(text)")
                #expect(text.contains("Order By: ((position_earth(lat, lng))::cube <-> (position_earth($1, $2))::cube)"), "\(text)")
            }
            let found = try await client.query(
                "SELECT driver_id FROM nearest_dispatchable_drivers(52.52, 13.405, 5000, 120, NULL, 5)",
                logger: Self.logger
            )
            var drivers: [UUID] = []
            for try await id in found.decode(UUID.self) { drivers.append(id) }
            #expect(drivers == [driver])
        }
    }
}
