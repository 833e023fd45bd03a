import EmbeddedPostgres
import Foundation
import Functions
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

/// Migration 0026: the event log's positions in `order_event_positions`, the events waiting for one in
/// `order_event_queue`.
@Suite("Functions: the order event log's positions and queue", .timeLimit(.minutes(10)))
struct EventPositionsTests {
    static let logger = BackendHarness.logger

    static func ids(_ client: PostgresClient, _ query: PostgresQuery) async throws -> [Int64] {
        try await client.query(query, logger: self.logger).collect().map { try $0.decode(Int64.self) }
    }

    /// `(position, event id)` in position order.
    static func positions(_ client: PostgresClient) async throws -> [[Int64]] {
        try await client.query(
            "SELECT position, event_id FROM order_event_positions ORDER BY position",
            logger: self.logger
        ).collect().map { let (position, id) = try $0.decode((Int64, Int64).self); return [position, id] }
    }

    @Test("0026 keeps each position and queues the rest; events are queued by their commit, sequenced in id order, written once")
    func positionsAndQueue() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            let (migrator, all) = try await BackendHarness.migrate(client, upTo: "0026_event_positions")
            // A booking (one `order.status` event) sequenced as the old sequencer did, then a second event not yet.
            let order = try await FreeDriverIndexTests.order(client, rider: "r1")
            try await client.query(
                """
                WITH e AS (UPDATE order_events SET position = 1 RETURNING id)
                UPDATE order_event_sequencer SET last_position = 1
                """,
                logger: Self.logger
            )
            try await FreeDriverIndexTests.move(client, order, to: "CANCELLED")
            // Another booking: two events without a position when the migration runs.
            let other = try await FreeDriverIndexTests.order(client, rider: "r0")
            let old = try await Self.ids(client, "SELECT id FROM order_events ORDER BY id")
            #expect(old.count == 3)

            try await migrator.migrate(all)
            #expect(try await Self.positions(client) == [[1, old[0]]])
            #expect(try await Self.ids(client, "SELECT id FROM order_event_queue ORDER BY id") == [old[1], old[2]])
            // The previous release's sequencer looks for events without a position: there are none, now or later.
            let unplaced: PostgresQuery = "SELECT count(*)::int8 FROM order_events WHERE position IS NULL"
            #expect(try await Self.ids(client, unplaced) == [0])

            let log = OrderEventLog(client: client, logger: Self.logger)
            #expect(try await log.sequence() == 2)
            #expect(try await Self.positions(client) == [[1, old[0]], [2, old[1]], [3, old[2]]])
            #expect(try await Self.ids(client, "SELECT id FROM order_event_queue").isEmpty)

            // A rolled-back change queues nothing; a committed one is queued with its event.
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: Self.logger)
                try await connection.query(
                    "UPDATE orders SET summary = '{\"fare\": 1}' WHERE id = \(order)", logger: Self.logger
                )
                try await connection.query("ROLLBACK", logger: Self.logger)
            }
            #expect(try await Self.ids(client, "SELECT id FROM order_event_queue").isEmpty)
            let second = try await FreeDriverIndexTests.order(client, rider: "r2")
            let third = try await FreeDriverIndexTests.order(client, rider: "r3")
            let queued = try await Self.ids(client, "SELECT id FROM order_event_queue ORDER BY id")
            #expect(queued.count == 2)
            // The sequencer writes positions, not events: each event's row stays where it was written (an update of
            // it, HOT or not, would put a new version elsewhere).
            let rowsAt: PostgresQuery = "SELECT ctid::text FROM order_events ORDER BY id"
            let written = try await client.query(rowsAt, logger: Self.logger).collect().map { try $0.decode(String.self) }
            #expect(try await log.sequence() == 2)
            let after = try await client.query(rowsAt, logger: Self.logger).collect().map { try $0.decode(String.self) }
            #expect(after == written)
            #expect(
                try await Self.positions(client) == [
                    [1, old[0]], [2, old[1]], [3, old[2]], [4, queued[0]], [5, queued[1]],
                ])
            #expect(try await log.sequence() == 0)
            #expect(try await Self.ids(client, unplaced) == [0])
            #expect(try await Self.ids(client, "SELECT position FROM order_events ORDER BY id") == [1, -1, -1, -1, -1])
            #expect(try await log.ends().last == 5)

            // The reads: everything after a position, and one order's or one caller's events in a range.
            let everything = try await log.events(after: 1)
            #expect(everything.map(\.position) == [2, 3, 4, 5])
            #expect(everything.map(\.orderID) == [order, other, second, third])
            let riders = try await client.query(
                "SELECT rider_id FROM orders WHERE id IN (\(second), \(third)) ORDER BY created_at, id",
                logger: Self.logger
            ).collect().map { try $0.decode(UUID.self) }
            let ofThird = try await log.events(of: .order(third, caller: riders[1]), after: 0, through: 5)
            #expect(ofThird.map(\.position) == [5])
            let ofSecondRider = try await log.events(of: .caller(riders[0]), after: 3, through: 5)
            #expect(ofSecondRider.map(\.position) == [4])
            #expect(try await log.events(of: .caller(riders[0]), after: 4, through: 5).isEmpty)
        }
    }

    /// An event written and queued as the triggers do, without their `NOTIFY` (so a notification is the sequencer's).
    static func queueEvent(_ client: PostgresClient) async throws {
        try await client.query(
            """
            WITH e AS (
                INSERT INTO order_events (order_id, kind, payload) VALUES (gen_random_uuid(), 'order.status', '{}')
                RETURNING id)
            INSERT INTO order_event_queue (id) SELECT id FROM e
            """,
            logger: Self.logger
        )
    }

    @Test("0035: sequencers racing each other and the writers give each committed event one position, without gaps, and notify only when they sequenced")
    func sequencerFunction() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let log = OrderEventLog(client: client, logger: Self.logger)
            try await AwakeTests.withListener(client: client, channel: OrderEventLog.channel) { payloads in
                /// What the channel got from `action` (the sequencer's notification has an empty payload).
                func notified<T>(_ action: () async throws -> T) async throws -> (result: T, payloads: [String]) {
                    try await AwakeTests.notified(
                        by: action, client: client, channel: OrderEventLog.channel, payloads: payloads)
                }
                // A hub waits for notifications (migration 0037: otherwise the sequencer notifies nobody).
                try await client.query(
                    "INSERT INTO order_event_hubs_listening VALUES ('h', clock_timestamp() + interval '1 hour')",
                    logger: Self.logger
                )
                let empty = try await notified { try await log.sequence() }
                #expect(empty.result == 0)
                #expect(empty.payloads.isEmpty, "nothing sequenced: no notification")
                try await Self.queueEvent(client)
                try await Self.queueEvent(client)
                let two = try await notified { try await log.sequence() }
                #expect(two.result == 2)
                #expect(two.payloads == [""])
                let none = try await notified { try await log.sequence() }
                #expect(none.result == 0)
                #expect(none.payloads.isEmpty)
            }

            // Four writers and three sequencers at once, then one sequencer for what is left.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { for _ in 0..<50 { try await Self.queueEvent(client) } }
                }
                for _ in 0..<3 {
                    group.addTask { for _ in 0..<40 { try await log.sequence() } }
                }
                try await group.waitForAll()
            }
            while try await log.sequence() > 0 {}
            let positions = try await Self.positions(client)
            #expect(positions.map { $0[0] } == Array(1...202), "positions 1...202, each once")
            let events = try await Self.ids(client, "SELECT id FROM order_events ORDER BY id")
            #expect(positions.map { $0[1] }.sorted() == events, "every event has exactly one position")
            #expect(try await Self.ids(client, "SELECT id FROM order_event_queue").isEmpty)
            #expect(try await log.ends().last == 202)
        }
    }
}

