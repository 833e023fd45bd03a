import EmbeddedPostgres
import Foundation
import Functions
import HyperTrackAPI
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

/// Migration 0021: `driver_positions.online` and `.busy`, the copies the free drivers' search index is built on.
@Suite("Functions: the free drivers' search index", .timeLimit(.minutes(10)))
struct FreeDriverIndexTests {
    static let logger = BackendHarness.logger

    /// `(online, busy)` of the driver's position row.
    static func copies(_ client: PostgresClient, driver: UUID) async throws -> [Bool] {
        let row = try await client.query(
            "SELECT online, busy FROM driver_positions WHERE driver_id = \(driver)",
            logger: self.logger
        ).collect().first
        let (online, busy) = try #require(try row?.decode((Bool, Bool).self))
        return [online, busy]
    }

    /// A driver (available, with a device) and their position at the centre.
    static func driver(_ client: PostgresClient, _ name: String, available: Bool = true) async throws -> UUID {
        let row = try await client.query(
            """
            WITH d AS (
                INSERT INTO users (role, name, phone, device_id, car_model, car_plate, available)
                VALUES ('driver', \(name), \("+49" + name), \("DEV-" + name), 'Prius', 'B-RS 1', \(available))
                RETURNING id)
            INSERT INTO driver_positions (driver_id, lat, lng, recorded_at) SELECT id, 52.52, 13.405, now() FROM d
            RETURNING driver_id
            """,
            logger: self.logger
        ).collect().first
        return try #require(try row?.decode(UUID.self))
    }

    /// A `NEW` order of a new rider.
    static func order(_ client: PostgresClient, rider name: String) async throws -> UUID {
        let row = try await client.query(
            """
            WITH r AS (INSERT INTO users (role, name, phone) VALUES ('rider', \(name), \("+49" + name)) RETURNING id)
            INSERT INTO orders (rider_id, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng)
            SELECT id, 52.52, 13.405, 52.5163, 13.3777 FROM r RETURNING id
            """,
            logger: self.logger
        ).collect().first
        return try #require(try row?.decode(UUID.self))
    }

    static func move(_ client: PostgresClient, _ order: UUID, to status: String) async throws {
        try await client.query("UPDATE orders SET status = \(status) WHERE id = \(order)", logger: self.logger)
    }

    static func accept(_ client: PostgresClient, _ order: UUID, by driver: UUID) async throws {
        try await client.query(
            "UPDATE orders SET status = 'ACCEPTED', driver_id = \(driver) WHERE id = \(order)",
            logger: self.logger
        )
    }

    @Test("migration 0021 copies each driver's state; then the copies follow availability, tracking and orders")
    func copiesFollowTheirSources() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            let (migrator, all) = try await BackendHarness.migrate(client, upTo: "0021_free_driver_index")
            let riding = try await Self.driver(client, "riding")
            let offline = try await Self.driver(client, "offline", available: false)
            let first = try await Self.order(client, rider: "r1")
            try await Self.accept(client, first, by: riding)
            try await migrator.migrate(all)
            #expect(try await Self.copies(client, driver: riding) == [true, true], "on a ride when migrated")
            #expect(try await Self.copies(client, driver: offline) == [false, false], "offline when migrated")

            for status in ["PICKING_UP", "REACHED_PICKUP", "STARTED_RIDE", "DROPPING_OFF", "REACHED_DROPOFF"] {
                try await Self.move(client, first, to: status)
                #expect(try await Self.copies(client, driver: riding) == [true, true], "\(status)")
            }
            try await Self.move(client, first, to: "COMPLETED")
            #expect(try await Self.copies(client, driver: riding) == [true, false], "the ride completed")

            try await client.query("UPDATE users SET available = true WHERE id = \(offline)", logger: Self.logger)
            #expect(try await Self.copies(client, driver: offline) == [true, false], "came online")
            for (status, online) in [("inactive", false), ("active", true), ("disconnected", false), ("active", true)] {
                try await client.query(
                    "UPDATE users SET device_status = \(status) WHERE id = \(offline)",
                    logger: Self.logger
                )
                #expect(try await Self.copies(client, driver: offline) == [online, false], "device \(status)")
            }

            let second = try await Self.order(client, rider: "r2")
            try await Self.accept(client, second, by: offline)
            #expect(try await Self.copies(client, driver: offline) == [true, true], "accepted")
            try await Self.move(client, second, to: "CANCELLED")
            #expect(try await Self.copies(client, driver: offline) == [true, false], "cancelled after accepting")

            let third = try await Self.order(client, rider: "r3")
            try await Self.accept(client, third, by: offline)
            try await client.query("DELETE FROM orders WHERE id = \(third)", logger: Self.logger)
            #expect(try await Self.copies(client, driver: offline) == [true, false], "the active order deleted")

            let fourth = try await Self.order(client, rider: "r4")
            try await Self.move(client, fourth, to: "CANCELLED")
            #expect(try await Self.copies(client, driver: offline) == [true, false], "another rider's order")
            try await client.query("UPDATE users SET available = false WHERE id = \(riding)", logger: Self.logger)
            #expect(try await Self.copies(client, driver: riding) == [false, false], "went offline")
        }
    }

    @Test("an order becoming active for a driver waits for their previous ride's end, so busy is cleared, then set")
    func transitionsOfOneDriverAreOrdered() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let logger = Self.logger
            let driver = try await Self.driver(client, "dana")
            let first = try await Self.order(client, rider: "r1")
            let second = try await Self.order(client, rider: "r2")
            try await Self.accept(client, first, by: driver)
            try await client.withConnection { ending in
                // The first ride ends in a transaction left open while the second order is accepted for the same
                // driver beside it: the accept must wait for the end (the unique index of active orders) and set
                // `busy` after the end cleared it.
                try await ending.query("BEGIN", logger: logger)
                try await ending.query(
                    "UPDATE orders SET status = 'CANCELLED' WHERE id = \(first)",
                    logger: logger
                )
                async let accepted: Void = Self.accept(client, second, by: driver)
                var waiting = 0
                let deadline = ContinuousClock.now + .seconds(60)
                while waiting == 0 && ContinuousClock.now < deadline {
                    // Polled from the pool, outside the open transaction: a transaction sees one snapshot of
                    // `pg_stat_activity` until it ends.
                    waiting =
                        try await client.query(
                            """
                            SELECT count(*)::int FROM pg_stat_activity
                            WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()
                              AND datname = current_database()
                            """,
                            logger: logger
                        ).collect().first?.decode(Int.self) ?? 0
                    // The accept reaching its lock wait is another session's step: polled, with a deadline.
                    if waiting == 0 { try await Task.sleep(for: .milliseconds(20)) }
                }
                try await ending.query("COMMIT", logger: logger)
                try await accepted
                #expect(waiting == 1, "the accept was not seen waiting for the ride's end")
            }
            #expect(try await Self.copies(client, driver: driver) == [true, true])
        }
    }

    @Test("a driver taking a ride or going offline while a delivery holds their position does not wait; the copy stays free")
    func narrowingWritesDoNotWait() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let logger = Self.logger
            let driver = try await Self.driver(client, "dana")
            let order = try await Self.order(client, rider: "r1")
            try await client.withConnection { delivery in
                // A delivery's transaction holds the driver's position row, as the intake's upsert does.
                try await delivery.query("BEGIN", logger: logger)
                try await delivery.query(
                    "SELECT 1 FROM driver_positions WHERE driver_id = \(driver) FOR NO KEY UPDATE",
                    logger: logger
                )
                // Both writes would wait for the delivery's commit; the lock timeout makes a wait an error.
                try await client.withTransaction(logger: logger) { connection in
                    try await connection.query("SET LOCAL lock_timeout = '5s'", logger: logger)
                    try await connection.query(
                        "UPDATE orders SET status = 'ACCEPTED', driver_id = \(driver) WHERE id = \(order)",
                        logger: logger
                    )
                }
                try await client.withTransaction(logger: logger) { connection in
                    try await connection.query("SET LOCAL lock_timeout = '5s'", logger: logger)
                    try await connection.query(
                        "UPDATE users SET device_status = 'inactive' WHERE id = \(driver)",
                        logger: logger
                    )
                }
                try await delivery.query("COMMIT", logger: logger)
            }
            #expect(try await Self.copies(client, driver: driver) == [true, false], "both writes gave up: still free")
            let store = PostgresRideStore(executor: client, logger: logger)
            let pickup = Coordinate(latitude: 52.52, longitude: 13.405)
            #expect(
                try await store.nearestAvailableDrivers(near: pickup, radius: 500, limit: 5).isEmpty,
                "the walk's recheck skips the driver the copy wrongly calls free"
            )
            // With nobody holding the row, the widening and narrowing writes land.
            try await client.query("UPDATE users SET device_status = 'active' WHERE id = \(driver)", logger: logger)
            try await Self.move(client, order, to: "CANCELLED")
            let next = try await Self.order(client, rider: "r2")
            try await Self.accept(client, next, by: driver)
            #expect(try await Self.copies(client, driver: driver) == [true, true])
        }
    }

    @Test("the search walks only free drivers' positions: a free driver behind 600 nearer drivers on rides is found")
    func busyDriversAreNotWalked() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let logger = Self.logger
            // 600 drivers on rides 10-50 m from the pickup (more than the 500 positions a search looks at), and one
            // free driver 300 m away.
            try await client.query(
                """
                WITH d AS (
                    INSERT INTO users (role, name, phone, device_id, available)
                    SELECT 'driver', 'Busy ' || i, '+49' || (1000 + i), 'BUSY-' || i, true
                    FROM generate_series(1, 600) i RETURNING id, device_id)
                INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                SELECT id, 52.52 + (10 + substr(device_id, 6)::int % 40) / 111000.0, 13.405, now() FROM d
                """,
                logger: logger
            )
            try await client.query(
                """
                WITH r AS (
                    INSERT INTO users (role, name, phone)
                    SELECT 'rider', 'Rider ' || i, '+48' || (1000 + i) FROM generate_series(1, 600) i RETURNING id)
                INSERT INTO orders (rider_id, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng)
                SELECT id, 52.5, 13.4, 52.51, 13.41 FROM r
                """,
                logger: logger
            )
            try await client.query(
                """
                WITH o AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM orders),
                     d AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM users WHERE role = 'driver')
                UPDATE orders SET status = 'ACCEPTED', driver_id = d.id FROM o JOIN d USING (n) WHERE orders.id = o.id
                """,
                logger: logger
            )
            let free = try await client.query(
                """
                WITH d AS (INSERT INTO users (role, name, phone, device_id, available)
                           VALUES ('driver', 'Free', '+4999', 'FREE', true) RETURNING id)
                INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                SELECT id, 52.52 + 300 / 111000.0, 13.405, now() FROM d RETURNING driver_id
                """,
                logger: logger
            ).collect().first?.decode(UUID.self)
            let busy = try await client.query(
                "SELECT count(*)::int FROM driver_positions WHERE busy",
                logger: logger
            ).collect().first?.decode(Int.self)
            #expect(busy == 600)
            let store = PostgresRideStore(executor: client, logger: logger)
            let pickup = Coordinate(latitude: 52.52, longitude: 13.405)
            #expect(try await store.nearestAvailableDrivers(near: pickup, radius: 2000, limit: 5) == [try #require(free)])
        }
    }
}
