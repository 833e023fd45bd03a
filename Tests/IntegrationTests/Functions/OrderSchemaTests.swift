import EmbeddedPostgres
import Foundation
import Functions
import HyperTrackAPI
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

@Suite("Functions: the domain schema and PostgresRideStore", .timeLimit(.minutes(10)))
struct OrderSchemaTests {
    static let logger = BackendHarness.logger

    /// A rider, a driver with a device, and an order in NEW.
    static func seed(
        _ client: PostgresClient,
        device: String = "D1"
    ) async throws -> (
        rider: UUID, driver: UUID, order: UUID
    ) {
        var ids: [UUID] = []
        let rows = try await client.query(
            """
            WITH r AS (INSERT INTO users (role, name, phone) VALUES ('rider', 'Ria', '+4930') RETURNING id),
                 d AS (INSERT INTO users (role, name, phone, device_id, car_model, car_plate, available)
                       VALUES ('driver', 'Dana', '+4931', \(device), 'Prius', 'B-RS 1', true) RETURNING id),
                 o AS (INSERT INTO orders (rider_id, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng)
                       SELECT id, 52.52, 13.405, 52.5163, 13.3777 FROM r RETURNING id)
            SELECT (SELECT id FROM r), (SELECT id FROM d), (SELECT id FROM o)
            """,
            logger: self.logger
        )
        for try await (rider, driver, order) in rows.decode((UUID, UUID, UUID).self) { ids = [rider, driver, order] }
        return (ids[0], ids[1], ids[2])
    }

    static func failure(_ client: PostgresClient, _ query: PostgresQuery) async -> String? {
        do {
            try await client.query(query, logger: self.logger)
            return nil
        } catch let error as PSQLError {
            return error.serverInfo?[.message]
        } catch {
            return "\(error)"
        }
    }

    @Test("the database refuses an illegal transition with an error naming both states")
    func illegalTransition() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let (_, driver, order) = try await Self.seed(client)
            let skip = await Self.failure(client, "UPDATE orders SET status = 'PICKING_UP' WHERE id = \(order)")
            #expect(skip == "illegal order transition NEW -> PICKING_UP")
            for status in [
                "ACCEPTED", "PICKING_UP", "REACHED_PICKUP", "STARTED_RIDE", "DROPPING_OFF", "REACHED_DROPOFF",
                "COMPLETED",
            ] {
                try await client.query(
                    "UPDATE orders SET status = \(status), driver_id = \(driver) WHERE id = \(order)",
                    logger: Self.logger
                )
            }
            let back = await Self.failure(client, "UPDATE orders SET status = 'PICKING_UP' WHERE id = \(order)")
            #expect(back == "illegal order transition COMPLETED -> PICKING_UP")
            let cancel = await Self.failure(client, "UPDATE orders SET status = 'CANCELLED' WHERE id = \(order)")
            #expect(cancel == "illegal order transition COMPLETED -> CANCELLED")
            let insert = await Self.failure(
                client,
                """
                INSERT INTO orders (rider_id, status, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng)
                SELECT rider_id, 'COMPLETED', 0, 0, 0, 0 FROM orders WHERE id = \(order)
                """
            )
            #expect(insert == "illegal order transition (none) -> COMPLETED")
            let unknown = await Self.failure(client, "UPDATE orders SET status = 'FLYING' WHERE id = \(order)")
            #expect(unknown != nil)
            let rows = try await client.query(
                "SELECT status, completed_at IS NOT NULL FROM orders WHERE id = \(order)",
                logger: Self.logger
            )
            for try await (status, stamped) in rows.decode((String, Bool).self) {
                #expect(status == "COMPLETED")
                #expect(stamped)
            }
        }
    }

    @Test("a driver can have only one active order")
    func oneActiveOrderPerDriver() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let (_, driver, order) = try await Self.seed(client)
            try await client.query(
                "UPDATE orders SET status = 'ACCEPTED', driver_id = \(driver) WHERE id = \(order)",
                logger: Self.logger
            )
            try await client.query(
                """
                WITH r AS (INSERT INTO users (role, name, phone) VALUES ('rider', 'Rob', '+4932') RETURNING id)
                INSERT INTO orders (id, rider_id, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng)
                SELECT '00000000-0000-0000-0000-000000000002', id, 1, 1, 2, 2 FROM r
                """,
                logger: Self.logger
            )
            let second = await Self.failure(
                client,
                "UPDATE orders SET status = 'ACCEPTED', driver_id = \(driver) WHERE id = '00000000-0000-0000-0000-000000000002'"
            )
            #expect(second?.contains("orders_driver_id_active_idx") == true)
        }
    }

    @Test("PostgresRideStore: conditional, idempotent writes on a transaction; indexed nearest-driver search")
    func rideStore() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let (_, driver, order) = try await Self.seed(client, device: "D1")
            try await client.withTransaction(logger: Self.logger) { connection in
                let store = PostgresRideStore(connection: connection, logger: Self.logger)
                #expect(try await store.order(id: order)?.status == .new)
                #expect(try await store.deviceID(ofDriver: driver) == "D1")
                let trip = Trip(
                    tripID: "T-1",
                    deviceID: "D1",
                    status: .active,
                    views: .init(shareURL: "https://trck.at/x"),
                    estimate: .init(distance: 10, duration: 5, polyline: [Coordinate(latitude: 1, longitude: 2)])
                )
                #expect(try await store.recordLeg(NewLeg(orderID: order, kind: .pickup, trip: trip)))
                #expect(try await store.recordLeg(NewLeg(orderID: order, kind: .pickup, trip: trip)) == false)
                let leg = try #require(try await store.leg(orderID: order, kind: .pickup))
                #expect(try await store.leg(tripID: "T-1") == leg)
                #expect(try await store.moveOrder(id: order, from: .accepted, to: .pickingUp) == false)
                await #expect(throws: FunctionsError.self) {
                    try await store.moveOrder(id: order, from: .new, to: .completed)
                }
                #expect(try await store.markLegsForCompletion(orderID: order, kinds: [.dropoff]) == 0)
                #expect(try await store.markLegsForCompletion(orderID: order, kinds: [.pickup]) == 1)
                #expect(try await store.markLegsForCompletion(orderID: order, kinds: [.pickup]) == 0)
                #expect(try await store.markLegCompleted(id: leg.id))
                #expect(try await store.markLegCompleted(id: leg.id) == false)
                try await store.recordLegSummary(
                    legID: leg.id,
                    summary: LegSummary(distance: 3, duration: 4, route: [[1, 2]])
                )
                #expect(
                    try await store.legs(orderID: order).first?.summary
                        == LegSummary(distance: 3, duration: 4, route: [[1, 2]])
                )
                let t0 = Date(timeIntervalSince1970: 1_900_000_000)
                #expect(
                    try await store.updateDriverPosition(
                        deviceID: "D1",
                        latitude: 52.521,
                        longitude: 13.405,
                        recordedAt: t0
                    )
                )
                #expect(
                    try await store.updateDriverPosition(deviceID: "D1", latitude: 0, longitude: 0, recordedAt: t0 - 1)
                        == false
                )
                #expect(
                    try await store.updateDriverPosition(deviceID: "NOPE", latitude: 0, longitude: 0, recordedAt: t0)
                        == false
                )
                let pickup = Coordinate(latitude: 52.52, longitude: 13.405)
                #expect(try await store.nearestAvailableDrivers(near: pickup, radius: 500, limit: 5) == [driver])
                #expect(try await store.nearestAvailableDrivers(near: pickup, radius: 50, limit: 5).isEmpty)
                #expect(try await store.availableDrivers(deviceIDs: ["D1", "X"]) == ["D1": driver])
                try await store.recordOffers(orderID: order, driverIDs: [driver])
                try await store.recordOffers(orderID: order, driverIDs: [driver])
                let offers = try await connection.query(
                    "SELECT count(*) FROM order_offers WHERE order_id = \(order)",
                    logger: Self.logger
                )
                for try await count in offers.decode(Int.self) { #expect(count == 1) }
            }
        }
    }

    @Test("the search looks at the 500 nearest positions: a free driver behind 500 off-duty ones is not offered")
    func boundedSearch() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            // `count` off-duty drivers 10-50 m from the pickup, and one free driver 300 m away.
            func city(offDuty count: Int) async throws -> UUID {
                try await client.query("DELETE FROM driver_positions", logger: Self.logger)
                try await client.query("DELETE FROM users", logger: Self.logger)
                try await client.query(
                    """
                    WITH d AS (
                        INSERT INTO users (role, name, phone, device_id, available)
                        SELECT 'driver', 'Off ' || i, '+49' || (1000 + i), 'OFF-' || i, false
                        FROM generate_series(1, \(count)) i RETURNING id, device_id)
                    INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                    SELECT id, 52.52 + (10 + substr(device_id, 5)::int % 40) / 111000.0, 13.405, now() FROM d
                    """,
                    logger: Self.logger
                )
                let free = try #require(
                    try await client.query(
                        """
                        WITH d AS (INSERT INTO users (role, name, phone, device_id, available)
                                   VALUES ('driver', 'Free', '+4999', 'FREE', true) RETURNING id)
                        INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                        SELECT id, 52.52 + 300 / 111000.0, 13.405, now() FROM d RETURNING driver_id
                        """,
                        logger: Self.logger
                    ).collect().first?.decode(UUID.self)
                )
                return free
            }
            let store = PostgresRideStore(executor: client, logger: Self.logger)
            let pickup = Coordinate(latitude: 52.52, longitude: 13.405)
            let found = try await city(offDuty: 499)
            #expect(try await store.nearestAvailableDrivers(near: pickup, radius: 2000, limit: 5) == [found])
            _ = try await city(offDuty: 500)
            #expect(try await store.nearestAvailableDrivers(near: pickup, radius: 2000, limit: 5).isEmpty)
        }
    }

    @Test(
        "a driver on a ride: a moved position is a driver.position event for the rider, a still one (re-reported) is not"
    )
    func positionEvents() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let (_, driver, order) = try await Self.seed(client)
            try await client.query(
                "UPDATE orders SET status = 'ACCEPTED', driver_id = \(driver) WHERE id = \(order)",
                logger: Self.logger
            )
            func positionEvents() async throws -> Int {
                try await client.query(
                    "SELECT count(*)::int FROM order_events WHERE kind = 'driver.position' AND order_id = \(order)",
                    logger: Self.logger
                ).collect().first?.decode(Int.self) ?? -1
            }
            // The rider's events are throttled to one a second per order: each step waits past it in the database.
            func write(_ statement: PostgresQuery) async throws {
                try await client.query(
                    "UPDATE order_position_throttle SET emitted_at = emitted_at - interval '2 s'",
                    logger: Self.logger
                )
                try await client.query(statement, logger: Self.logger)
            }
            try await write(
                "INSERT INTO driver_positions (driver_id, lat, lng, recorded_at) VALUES (\(driver), 52.5, 13.4, now())"
            )
            #expect(try await positionEvents() == 1, "the first position")
            try await write("UPDATE driver_positions SET recorded_at = now() WHERE driver_id = \(driver)")
            #expect(try await positionEvents() == 1, "re-reported where it was: nothing new for the rider")
            try await write("UPDATE driver_positions SET lat = 52.501, recorded_at = now() WHERE driver_id = \(driver)")
            #expect(try await positionEvents() == 2, "moved")
            try await write("UPDATE driver_positions SET lng = 13.401 WHERE driver_id = \(driver)")
            #expect(try await positionEvents() == 3, "moved east only")
        }
    }

    @Test(
        "one statement moving many drivers: an event for each on a ride (upsert included), none for a free one, one a second"
    )
    func positionEventsPerStatement() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let logger = Self.logger
            let drivers = try await client.query(
                """
                INSERT INTO users (role, name, phone, device_id, car_model, car_plate, available)
                SELECT 'driver', 'Dana ' || n, '+4931' || n, 'D' || n, 'Prius', 'B-RS ' || n, true
                FROM generate_series(1, 3) AS n ORDER BY n RETURNING id
                """,
                logger: logger
            ).collect().map { try $0.decode(UUID.self) }
            var orders: [UUID] = []
            for (index, driver) in drivers.prefix(2).enumerated() {
                let row = try await client.query(
                    """
                    WITH r AS (INSERT INTO users (role, name, phone) VALUES ('rider', 'Ria', \("+4930\(index)")) RETURNING id)
                    INSERT INTO orders (rider_id, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng)
                    SELECT id, 52.52, 13.405, 52.5163, 13.3777 FROM r RETURNING id
                    """,
                    logger: logger
                ).collect().first
                let order = try #require(try row?.decode(UUID.self))
                try await client.query(
                    "UPDATE orders SET status = 'ACCEPTED', driver_id = \(driver) WHERE id = \(order)", logger: logger
                )
                orders.append(order)
            }
            // Events per order, in the orders' order, and the latitude of each order's latest.
            func events() async throws -> [Int] {
                var counts: [Int] = []
                for order in orders {
                    let row = try await client.query(
                        """
                        SELECT count(*)::int FROM order_events
                        WHERE kind = 'driver.position' AND order_id = \(order) AND driver_id IS NOT NULL
                        """,
                        logger: logger
                    ).collect().first
                    counts.append(try row?.decode(Int.self) ?? -1)
                }
                return counts
            }
            func allEvents() async throws -> Int {
                let row = try await client.query(
                    "SELECT count(*)::int FROM order_events WHERE kind = 'driver.position'", logger: logger
                ).collect().first
                return try row?.decode(Int.self) ?? -1
            }
            // The throttle's last emission set an hour away, so the test's own pace (77 s under the full suite in CI)
            // cannot decide whether a move falls within the second.
            func throttle(until offset: String) async throws {
                try await client.query(
                    "UPDATE order_position_throttle SET emitted_at = clock_timestamp() + \(offset)::interval",
                    logger: logger
                )
            }
            try await client.query(
                """
                INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                SELECT id, 52.5, 13.4, now() FROM unnest(\(drivers)::uuid[]) AS d(id)
                """,
                logger: logger
            )
            #expect(try await events() == [1, 1], "one insert of three drivers: the two on rides")
            #expect(try await allEvents() == 2, "nothing for the free driver")
            try await throttle(until: "1 hour")
            try await client.query("UPDATE driver_positions SET lat = lat + 0.001", logger: logger)
            #expect(try await events() == [1, 1], "moved again within the second: throttled")
            try await throttle(until: "-1 hour")
            try await client.query(
                """
                INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                SELECT id, 52.51, 13.4, now() FROM unnest(\(drivers)::uuid[]) AS d(id)
                ON CONFLICT (driver_id) DO UPDATE SET lat = excluded.lat, recorded_at = excluded.recorded_at
                """,
                logger: logger
            )
            #expect(try await events() == [2, 2], "the intake's upsert: its updated rows count as moves")
            try await throttle(until: "-1 hour")
            try await client.query(
                """
                UPDATE driver_positions SET lat = CASE WHEN driver_id = \(drivers[0]) THEN 52.52 ELSE lat END,
                                            recorded_at = now()
                """,
                logger: logger
            )
            #expect(try await events() == [3, 2], "only the driver who moved")
            let latest = try await client.query(
                """
                SELECT (payload ->> 'lat')::float8 FROM order_events
                WHERE kind = 'driver.position' AND order_id = \(orders[0]) ORDER BY id DESC LIMIT 1
                """,
                logger: logger
            ).collect().first
            #expect(try latest?.decode(Double.self) == 52.52)
            #expect(try await allEvents() == 5)
        }
    }

    @Test("a ride that ends is captured for offerWaitingOrdersAfterRide; an order cancelled before any driver is not")
    func freedDriverCapture() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            try await TriggerInstaller(client: client, logger: Self.logger).install(Backend.bindings)
            let (rider, driver, unassigned) = try await Self.seed(client)
            func captured(_ function: String) async throws -> Int {
                let row = try await client.query(
                    "SELECT count(*)::int FROM trigger_runtime.deliveries WHERE function_name = \(function)",
                    logger: Self.logger
                ).collect().first
                return try row?.decode(Int.self) ?? -1
            }
            try await client.query(
                "UPDATE orders SET status = 'CANCELLED', cancellation_reason = 'rider' WHERE id = \(unassigned)",
                logger: Self.logger
            )
            #expect(try await captured("updateOrderStatus") == 1, "the capture trigger ran")
            #expect(try await captured("offerWaitingOrdersAfterRide") == 0, "no driver: nobody freed")
            let row = try await client.query(
                """
                INSERT INTO orders (rider_id, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng)
                VALUES (\(rider), 52.52, 13.405, 52.5163, 13.3777) RETURNING id
                """,
                logger: Self.logger
            ).collect().first
            let ride = try #require(try row?.decode(UUID.self))
            try await client.query(
                "UPDATE orders SET status = 'ACCEPTED', driver_id = \(driver) WHERE id = \(ride)", logger: Self.logger
            )
            for status in ["PICKING_UP", "REACHED_PICKUP", "STARTED_RIDE", "DROPPING_OFF", "REACHED_DROPOFF"] {
                try await client.query("UPDATE orders SET status = \(status) WHERE id = \(ride)", logger: Self.logger)
            }
            #expect(try await captured("offerWaitingOrdersAfterRide") == 0, "still riding")
            try await client.query("UPDATE orders SET status = 'COMPLETED' WHERE id = \(ride)", logger: Self.logger)
            #expect(try await captured("offerWaitingOrdersAfterRide") == 1)
        }
    }

    @Test("PostgresRideStore on the pooled client: the API's writes keep the state machine's rules")
    func rideStoreOnClient() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            let (seededRider, driver, seeded) = try await Self.seed(client, device: "D1")
            let store = PostgresRideStore(executor: client, logger: Self.logger)
            let place = OrderRow.Place(latitude: 52.52, longitude: 13.405, address: "Alexanderplatz")
            await #expect(throws: FunctionsError.riderBusy(seededRider), "the seeded order is still open") {
                try await store.book(NewOrder(riderID: seededRider, pickup: place, dropoff: place))
            }
            let rider = try #require(
                try await client.query(
                    "INSERT INTO users (role, name, phone) VALUES ('rider', 'Rob', '+4932') RETURNING id",
                    logger: Self.logger
                ).collect().first?.decode(UUID.self)
            )
            let order = try await store.book(NewOrder(riderID: rider, pickup: place, dropoff: place))
            #expect(order.status == .new)
            #expect(order.pickup == place)
            #expect(order.createdAt != nil && order.updatedAt != nil)
            #expect(try await store.accept(orderID: order.id, driverID: driver) == false)  // not offered
            try await store.recordOffers(orderID: order.id, driverIDs: [driver])
            try await store.recordOffers(orderID: seeded, driverIDs: [driver])
            #expect(try await store.accept(orderID: order.id, driverID: driver))
            #expect(try await store.accept(orderID: order.id, driverID: driver) == false)
            await #expect(throws: FunctionsError.driverBusy(driver)) {
                try await store.accept(orderID: seeded, driverID: driver)
            }
            #expect(try await store.moveOrder(id: order.id, from: .accepted, to: .pickingUp))
            #expect(try await store.moveOrder(id: order.id, from: .pickingUp, to: .reachedPickup))
            let startRide = { (by: UUID) in
                try await store.advance(orderID: order.id, driverID: by, from: .reachedPickup, to: .startedRide)
            }
            #expect(try await startRide(rider) == false)
            #expect(try await startRide(driver))
            #expect(try await store.cancel(orderID: order.id, by: UUID(), reason: "not mine") == false)
            #expect(try await store.cancel(orderID: order.id, by: driver, reason: "flat tyre"))
            let cancelled = try #require(try await store.order(id: order.id))
            #expect(cancelled.status == .cancelled)
            #expect(cancelled.cancellationReason == "flat tyre")
            #expect(try await store.cancel(orderID: order.id, by: rider, reason: "again") == false)
        }
    }
}
