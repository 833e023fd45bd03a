import EmbeddedPostgres
import Foundation
import PostgresNIO
import Testing

@testable import Functions

/// ``M0032DocumentStatistics``: the document columns are left out of `ANALYZE`, and the list of them is whole.
@Suite("Functions: no planner statistics for document columns", .timeLimit(.minutes(10)))
struct DocumentStatisticsTests {
    static let logger = BackendHarness.logger

    @Test("every jsonb column is listed, and ANALYZE gathers statistics for none of the listed ones")
    func documentColumns() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            // Every jsonb column of the schema, with its statistics target.
            let targets = try await client.query(
                """
                SELECT (c.relname || '.' || a.attname)::text, a.attstattarget::int
                FROM pg_attribute a
                JOIN pg_class c ON c.oid = a.attrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
                  AND a.atttypid = 'jsonb'::regtype
                """,
                logger: Self.logger
            ).collect().map { try $0.decode((String, Int).self) }
            #expect(
                Set(targets.map(\.0)) == Set(M0032DocumentStatistics.columns),
                "a new jsonb column belongs in M0032DocumentStatistics.columns"
            )
            for (column, target) in targets {
                #expect(target == 0, "\(column)")
            }

            // An order with a summary, and its events, then ANALYZE: statistics for their other columns only.
            let (_, driver, order) = try await OrderSchemaTests.seed(client)
            try await client.query(
                """
                UPDATE orders SET summary = '{"distance_m": 1200}', driver_id = \(driver), status = 'ACCEPTED'
                WHERE id = \(order)
                """,
                logger: Self.logger
            )
            try await client.query("ANALYZE", logger: Self.logger)
            let gathered = try await client.query(
                """
                SELECT (tablename || '.' || attname)::text FROM pg_stats
                WHERE schemaname = 'public' AND tablename IN ('orders', 'order_events')
                ORDER BY 1
                """,
                logger: Self.logger
            ).collect().map { try $0.decode(String.self) }
            #expect(gathered.contains("orders.status"), "ANALYZE ran: \(gathered)")
            #expect(gathered.contains("order_events.kind"), "ANALYZE ran: \(gathered)")
            #expect(!gathered.contains("orders.summary"), "\(gathered)")
            #expect(!gathered.contains("order_events.payload"), "\(gathered)")
        }
    }
}
