import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import LocalStack

/// The simulation's reads of the stack's database must never wait for ever (a chaos run hung on one after
/// PostgreSQL's restart): a query that does not answer fails within the timeout, and a lost connection is opened
/// again by the next query.
@Suite("Simulation database: bounded queries, reconnects after a lost connection")
struct SimulationDatabaseTests {
    @Test("a query that does not answer within the timeout fails, and the next query runs on a new connection")
    func timeout() async throws {
        try await TestDatabase.shared.withDatabase(logger: LocalStackTests.logger) { _, database in
            // The other queries keep the default timeout: under CI's loaded suite even `pg_backend_pid()` once took
            // longer than the half second this one gets.
            try await SimulationDatabase.with(
                configuration: try await SimulationTests.connection(database),
                logger: LocalStackTests.logger
            ) { simulation in
                let before = try await Self.backend(simulation)
                let started = ContinuousClock.now
                await #expect(throws: LocalStackError.timedOut("")) {
                    try await simulation.query("SELECT pg_sleep(60)", timeout: .milliseconds(500))
                }
                // The wait ended with the timeout, not with the statement (60 s).
                #expect(ContinuousClock.now - started < .seconds(30))
                let after = try await Self.backend(simulation)
                #expect(after != before, "a new connection (backend \(before) was closed)")
            }
        }
    }

    @Test("a connection the server ends fails its query, and the next query connects again")
    func reconnect() async throws {
        try await TestDatabase.shared.withDatabase(logger: LocalStackTests.logger) { client, database in
            try await SimulationDatabase.with(
                configuration: try await SimulationTests.connection(database),
                logger: LocalStackTests.logger
            ) { simulation in
                let before = try await Self.backend(simulation)
                // As PostgreSQL's restart does to every connection.
                let rows = try await client.query(
                    "SELECT pg_terminate_backend(\(before))",
                    logger: LocalStackTests.logger
                )
                for try await terminated in rows.decode(Bool.self) { #expect(terminated) }
                // The first query after may or may not see the closed connection (the server's notice races it);
                // within a few queries the database answers from a new backend.
                var after: Int32?
                for _ in 0..<5 where after == nil {
                    after = try? await Self.backend(simulation)
                }
                #expect(after != nil && after != before, "backend \(before) was replaced, got \(String(describing: after))")
            }
        }
    }

    static func backend(_ database: SimulationDatabase) async throws -> Int32 {
        let rows = try await database.query("SELECT pg_backend_pid()")
        return try #require(rows.first).decode(Int32.self)
    }
}
