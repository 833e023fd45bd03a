import EmbeddedPostgres
import Foundation
import Functions
import PostgresNIO
import Testing

/// Migration 0025: the position events' statement runs only for writes that moved a driver, and the event functions
/// plan once per connection.
@Suite("Functions: the position events' statement and plans (migration 0025)", .timeLimit(.minutes(10)))
struct PositionEventPlanTests {
    static let logger = BackendHarness.logger

    @Test("an update of driver_positions that moves nobody (an availability copy) does not run the events' statement")
    func stillWritesSkipTheEvents() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let driver = try await FreeDriverIndexTests.driver(client, "still")
            let calls = try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: Self.logger)
                try await connection.query("SET LOCAL track_functions = 'pl'", logger: Self.logger)
                // Two writes that move nobody (the availability copy, a still phone's report), then one that moves.
                try await connection.query(
                    "UPDATE driver_positions SET online = false WHERE driver_id = \(driver)", logger: Self.logger)
                try await connection.query(
                    "UPDATE driver_positions SET recorded_at = now() WHERE driver_id = \(driver)", logger: Self.logger)
                try await connection.query(
                    "UPDATE driver_positions SET lat = lat + 0.001 WHERE driver_id = \(driver)", logger: Self.logger)
                let rows = try await connection.query(
                    """
                    SELECT funcname::text, calls FROM pg_stat_xact_user_functions
                    WHERE funcname IN ('order_events_on_positions', 'order_events_for_positions')
                    """,
                    logger: Self.logger
                )
                var calls: [String: Int] = [:]
                for try await (name, count) in rows.decode((String, Int).self) { calls[name] = count }
                try await connection.query("ROLLBACK", logger: Self.logger)
                return calls
            }
            // The statement trigger runs for each of the three; the events' function for the move only.
            #expect(calls == ["order_events_on_positions": 3, "order_events_for_positions": 1])
        }
    }

    @Test("order_events_for_positions and order_event_documents plan generic: one plan per connection")
    func genericPlans() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let rows = try await client.query(
                """
                SELECT proname::text, array_to_string(proconfig, ',') FROM pg_proc
                WHERE proname IN ('order_events_for_positions', 'order_event_documents') ORDER BY 1
                """,
                logger: Self.logger
            )
            var settings: [String: String] = [:]
            for try await (name, config) in rows.decode((String, String?).self) { settings[name] = config ?? "" }
            #expect(
                settings == [
                    "order_event_documents": "plan_cache_mode=force_generic_plan",
                    "order_events_for_positions": "plan_cache_mode=force_generic_plan",
                ]
            )
        }
    }
}
