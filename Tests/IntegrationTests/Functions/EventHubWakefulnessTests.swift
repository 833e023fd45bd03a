import EmbeddedPostgres
import Foundation
import Functions
import Logging
import Metrics
import MetricsTestKit
import PostgresNIO
import ServiceLifecycle
import Testing
import TriggerRuntime

/// Migration 0036 and the hub's pacing: the writers of order events skip their `NOTIFY` while a hub reads the log on
/// a schedule (``M0036EventHubWakefulness``, ``EventHubPacing``).
@Suite("Functions: the order event hub's wakefulness", .timeLimit(.minutes(10)))
struct EventHubWakefulnessTests {
    static let logger = BackendHarness.logger

    /// One `order.status` event of `rider`, written as the triggers write one.
    static func append(_ client: PostgresClient, rider: UUID) async throws {
        try await client.query(
            "SELECT order_event_append(gen_random_uuid(), 'order.status', \(rider), NULL, '{}'::jsonb)",
            logger: Self.logger
        )
    }

    static func count(_ client: PostgresClient, _ query: PostgresQuery) async throws -> Int64 {
        try await client.query(query, logger: Self.logger).collect().first?.decode(Int64.self) ?? -1
    }

    @Test("0036, 0037: a writer notifies unless a hub's declaration is unexpired (or it is not READ COMMITTED); the sequencer while a hub listens")
    func writersSkipTheirNotify() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let log = OrderEventLog(client: client, logger: Self.logger)
            let rider = UUID()
            try await AwakeTests.withListener(client: client, channel: OrderEventLog.channel) { payloads in
                /// What the channel got from `action` (the sequencer's notification has an empty payload).
                func notified<T>(_ action: () async throws -> T) async throws -> (result: T, payloads: [String]) {
                    try await AwakeTests.notified(
                        by: action, client: client, channel: OrderEventLog.channel, payloads: payloads)
                }
                let asleep = try await notified { try await Self.append(client, rider: rider) }
                #expect(asleep.payloads == [""], "no hub awake")
                // A hub waiting for notifications (asleep) registers itself: the sequencer notifies for it.
                try await client.query(
                    "INSERT INTO order_event_hubs_listening VALUES ('h2', clock_timestamp() + interval '1 hour')",
                    logger: Self.logger
                )
                let first = try await notified { try await log.sequence() }
                #expect(first.result == 1)
                #expect(first.payloads == [""])

                try await client.query(
                    "INSERT INTO order_event_hubs_awake VALUES ('h1', clock_timestamp() + interval '1 hour')",
                    logger: Self.logger
                )
                let awake = try await notified { try await Self.append(client, rider: rider) }
                #expect(awake.payloads.isEmpty, "a hub awake")
                let repeatableRead = try await notified {
                    try await client.withConnection { connection in
                        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: Self.logger)
                        try await connection.query(
                            "SELECT order_event_append(gen_random_uuid(), 'order.status', \(rider), NULL, '{}'::jsonb)",
                            logger: Self.logger
                        )
                        try await connection.query("COMMIT", logger: Self.logger)
                    }
                }
                #expect(repeatableRead.payloads == [""], "REPEATABLE READ: its snapshot may be older than a withdrawal")
                // The sequencer notifies for the hub that listens; the skipped event was queued.
                let second = try await notified { try await log.sequence() }
                #expect(second.result == 2)
                #expect(second.payloads == [""])
                // No hub listens (one expired): the sequencer gives positions without a notification.
                try await client.query(
                    "UPDATE order_event_hubs_listening SET until = clock_timestamp() - interval '1 second'",
                    logger: Self.logger
                )
                try await Self.append(client, rider: rider)
                let unheard = try await notified { try await log.sequence() }
                #expect(unheard.result == 1)
                #expect(unheard.payloads.isEmpty, "nobody listens")

                try await client.query(
                    "UPDATE order_event_hubs_awake SET until = clock_timestamp() - interval '1 second'",
                    logger: Self.logger
                )
                let expired = try await notified { try await Self.append(client, rider: rider) }
                #expect(expired.payloads == [""], "an expired declaration")
            }
        }
    }

    @Test(
        "0036: under a stream of events the hub declares itself, and withdraws after it; every event reaches its stream; its paced pauses are timed"
    )
    func hubPacesAndWithdraws() async throws {
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            try await self.pacesAndWithdraws()
        }
        // Every pass timed, and while paced each pause as it lasted: at least the interval asked for (10 ms).
        let sequence = try metrics.expectTimer("order_events.hub.duration", [("stage", "sequence")]).values
        let read = try metrics.expectTimer("order_events.hub.duration", [("stage", "read")]).values
        let pauses = try metrics.expectTimer("order_events.hub.duration", [("stage", "pause")]).values
        #expect(!sequence.isEmpty && sequence.count == read.count)
        #expect(!pauses.isEmpty && pauses.count < sequence.count, "paused only while paced")
        #expect(pauses.allSatisfy { $0 >= 10_000_000 }, "\(pauses.min() ?? -1) ns")
    }

    func pacesAndWithdraws() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            var configuration = OrderEventHub.Configuration()
            configuration.pacedAbove = 3
            configuration.pacedInterval = .milliseconds(10)
            configuration.awakeFor = .seconds(1)
            configuration.bufferSize = 5000
            let hub = OrderEventHub(client: client, configuration: configuration, logger: Self.logger)
            let rider = UUID()
            let declared: PostgresQuery = "SELECT count(*)::int8 FROM order_event_hubs_awake WHERE until > clock_timestamp()"
            let listening: PostgresQuery =
                "SELECT count(*)::int8 FROM order_event_hubs_listening WHERE until > clock_timestamp()"
            // Registrations of hubs that died: one that expired a minute ago goes when a hub registers, one that
            // expired moments ago stays (the clocks of two API hosts may differ by that much).
            try await client.query(
                """
                INSERT INTO order_event_hubs_listening VALUES
                    ('dead', clock_timestamp() - interval '2 minutes'), ('recent', clock_timestamp() - interval '10 s')
                """,
                logger: Self.logger
            )
            try await ServiceGroup.withRunning([hub], logger: Self.logger) {
                try await RideHarness.eventually("the hub runs", timeout: .seconds(30)) { hub.isRunning }
                let (subscription, _) = try #require(hub.subscribe(scope: .caller(rider), maximumDuration: .seconds(120)))
                defer { hub.unsubscribe(subscription) }
                #expect(try await Self.count(client, declared) == 0, "no stream of events yet")
                try await RideHarness.eventually("the hub registered as listening", timeout: .seconds(30)) {
                    try await Self.count(client, listening) == 1
                }
                let left = try await client.query(
                    "SELECT hub FROM order_event_hubs_listening WHERE until < clock_timestamp() ORDER BY hub",
                    logger: Self.logger
                ).collect().map { try $0.decode(String.self) }
                #expect(left == ["recent"])

                // Events written one after another until the hub has declared itself (at most 2,000 of them).
                // The declaration seen is the one asserted: read again, it may already be withdrawn (the loop
                // stopped writing, and a hub's pass that finds the stream over withdraws; CI saw that once).
                var written = 0
                var wasDeclared = false
                var listenedWhileDeclared: Int64 = -1
                while written < 2000 && !wasDeclared {
                    try await Self.append(client, rider: rider)
                    written += 1
                    if written % 10 == 0 {
                        // Both in one snapshot: the declaration and the registration change in one statement.
                        let rows = try await client.query(
                            """
                            SELECT (SELECT count(*) FROM order_event_hubs_awake WHERE until > clock_timestamp())::int8,
                                   (SELECT count(*) FROM order_event_hubs_listening WHERE hub LIKE 'hub-%')::int8
                            """,
                            logger: Self.logger
                        ).collect()
                        let (awake, listened) = try #require(rows.first).decode((Int64, Int64).self)
                        wasDeclared = awake == 1
                        if wasDeclared { listenedWhileDeclared = listened }
                    }
                }
                #expect(wasDeclared, "declared after \(written) events")
                #expect(listenedWhileDeclared == 0, "a hub that reads on a schedule waits for no notification")
                // Declared: the writers skip their NOTIFY, and the hub still hands every event to the stream.
                for _ in 0..<20 { try await Self.append(client, rider: rider) }
                written += 20
                for index in 0..<written {
                    guard case .event(let event) = await subscription.next() else {
                        Issue.record("the stream ended at event \(index) of \(written)")
                        return
                    }
                    #expect(event.riderID == rider)
                }
                // The stream over: the hub withdraws its declaration.
                try await RideHarness.eventually("the declaration withdrawn", timeout: .seconds(30)) {
                    try await Self.count(client, "SELECT count(*)::int8 FROM order_event_hubs_awake") == 0
                }
                #expect(try await Self.count(client, listening) == 1, "registered again in the withdrawal")
            }
            // Stopped: neither row is left to expire.
            let own: PostgresQuery = "SELECT count(*)::int8 FROM order_event_hubs_listening WHERE hub LIKE 'hub-%'"
            #expect(try await Self.count(client, own) == 0)
            #expect(try await Self.count(client, "SELECT count(*)::int8 FROM order_event_hubs_awake") == 0)
        }
    }
}
