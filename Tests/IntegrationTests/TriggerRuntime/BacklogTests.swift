import Foundation
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

/// The backlog `/metrics` reports (`trigger_deliveries_pending`, `_running`, `_dead`, `_oldest_pending_age_seconds`)
/// is the deliveries table's, so it counts what any worker left there and survives restarts.
@Suite("TriggerRuntime: the delivery backlog read from the database", .timeLimit(.minutes(10)))
struct BacklogTests {
    @Test(
        "pending, running (leased) and dead per function, and the oldest pending age; a registered function with none is all zero"
    )
    func backlog() async throws {
        let (logger, _) = Logger.capturing()
        var builder = FunctionRegistry()
        builder.register("idle", on: .create("items"), as: Item.self) { _, _ in }
        let registry = builder
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            // Written as another process would have left them: two waiting (one for an hour), one leased by a
            // worker (committed two hours ago), one dead (three hours ago).
            try await client.query(
                """
                INSERT INTO trigger_runtime.deliveries
                    (function_name, table_name, operation, document_key, status, committed_at, lease_owner, lease_token)
                VALUES ('f', 'public.items', 'create', '1', 'ready', now() - interval '1 hour', NULL, NULL),
                       ('f', 'public.items', 'create', '2', 'ready', now(), NULL, NULL),
                       ('f', 'public.items', 'create', '3', 'ready', now() - interval '2 hours', 'w', gen_random_uuid()),
                       ('f', 'public.items', 'create', '4', 'dead', now() - interval '3 hours', NULL, NULL)
                """
            )
            let backlog = try await DeliveryAdmin(client: client, logger: logger).backlog()
            let f = try #require(backlog.first { $0.function == "f" })
            #expect(f.pending == 2 && f.running == 1 && f.dead == 1, "\(f)")
            // The oldest not yet done: the leased one, two hours old (the dead one no longer counts).
            #expect((7_200.0..<7_300.0).contains(f.oldestPendingAge), "\(f.oldestPendingAge)")
            let idle = try #require(backlog.first { $0.function == "idle" })
            #expect(idle.pending == 0 && idle.running == 0 && idle.dead == 0 && idle.oldestPendingAge == 0, "\(idle)")
        }
    }
}
