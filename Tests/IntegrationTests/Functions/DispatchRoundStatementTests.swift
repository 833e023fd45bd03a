import EmbeddedPostgres
import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import Logging
import PostgresNIO
import Testing

/// `StoreStatements.DispatchRound`: a whole dispatch round from the local index in one statement. The same rounds
/// run on PostgreSQL and on the in-memory twin must do the same, round by round: the radius growing by its step up
/// to its maximum (the SQL's formula against ``DispatchRadius/ofRound(_:)``), drivers already offered left out, stale
/// positions left out, the last round that offered anyone, and nothing once the order left `NEW`.
@Suite("Functions: a dispatch round in one statement", .timeLimit(.minutes(5)))
struct DispatchRoundStatementTests {
    static let logger = BackendHarness.logger
    static let pickup = Coordinate(latitude: 52.52, longitude: 13.405)
    /// 500 m, then 1,000 m, then 1,200 m for every later round.
    static let radius = DispatchRadius(first: 500, step: 500, maximum: 1200)
    static let ttl: Duration = .seconds(20)
    /// Drivers north of the pickup: name, metres away, position age in seconds.
    static let drivers: [(name: String, metres: Double, age: Double)] = [
        ("near", 300, 0), ("stale", 100, 600), ("middle", 900, 0), ("second-middle", 950, 0), ("far", 1500, 0),
    ]

    struct Outcome: Equatable, CustomStringConvertible {
        var number: Int
        var drivers: [String]
        var lastOfferedRound: Int
        var description: String { "round \(self.number) \(self.drivers) last \(self.lastOfferedRound)" }
    }

    @Test("PostgreSQL's one statement and the in-memory twin run the same rounds; offers and their events written")
    func sameRoundsOnBoth() async throws {
        // Five rounds with two offers a round: round 1 (500 m) the near driver; round 2 (1,000 m) the two middle
        // ones; round 3 and 4 (1,200 m) nobody (the far one is beyond the maximum); then the order is cancelled.
        let expected = [
            Outcome(number: 1, drivers: ["near"], lastOfferedRound: 0),
            Outcome(number: 2, drivers: ["middle", "second-middle"], lastOfferedRound: 1),
            Outcome(number: 3, drivers: [], lastOfferedRound: 2),
            Outcome(number: 4, drivers: [], lastOfferedRound: 2),
        ]
        #expect(Self.radius.ofRound(1) == 500 && Self.radius.ofRound(2) == 1000 && Self.radius.ofRound(9) == 1200)

        // The in-memory twin.
        let memory = InMemoryRideStore()
        let orderID = UUID()
        let now = await memory.now
        var names: [UUID: String] = [:]
        for driver in Self.drivers {
            let id = UUID()
            names[id] = driver.name
            await memory.addDriver(
                id: id, deviceID: "DEV-\(driver.name)",
                position: (Self.pickup.latitude + driver.metres / 111_195, Self.pickup.longitude),
                recordedAt: now.addingTimeInterval(-driver.age)
            )
        }
        await memory.addOrder(
            OrderRow(
                id: orderID, status: .new, riderID: UUID(), driverID: nil,
                pickup: OrderRow.Place(latitude: Self.pickup.latitude, longitude: Self.pickup.longitude, address: nil),
                dropoff: OrderRow.Place(latitude: 52.5163, longitude: 13.3777, address: nil)
            )
        )
        var inMemory: [Outcome] = []
        for _ in expected {
            let outcome = try #require(try await Self.round(memory, orderID))
            inMemory.append(Outcome(outcome, names: names))
        }
        #expect(inMemory == expected)
        // A failed round changes nothing (one statement: all or nothing).
        await memory.fail(.runDispatchRound)
        await #expect(throws: InMemoryRideStoreError.self) { try await Self.round(memory, orderID) }
        #expect(await memory.dispatchRounds(ofOrder: orderID) == 4)
        await memory.setStatus(.cancelled, ofOrder: orderID)
        #expect(try await Self.round(memory, orderID) == nil)
        #expect(await memory.dispatchRounds(ofOrder: orderID) == 4)

        // PostgreSQL.
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            var names: [UUID: String] = [:]
            for driver in Self.drivers {
                let row = try await client.query(
                    """
                    WITH d AS (
                        INSERT INTO users (role, name, phone, device_id, available)
                        VALUES ('driver', \(driver.name), \("+49" + driver.name), \("DEV-" + driver.name), true)
                        RETURNING id)
                    INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                    SELECT id, \(Self.pickup.latitude + driver.metres / 111_195), \(Self.pickup.longitude),
                           now() - make_interval(secs => \(driver.age))
                    FROM d RETURNING driver_id
                    """,
                    logger: Self.logger
                ).collect().first
                names[try #require(try row?.decode(UUID.self))] = driver.name
            }
            let row = try await client.query(
                """
                WITH r AS (INSERT INTO users (role, name, phone) VALUES ('rider', 'Rider', '+4800') RETURNING id)
                INSERT INTO orders (rider_id, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng)
                SELECT id, \(Self.pickup.latitude), \(Self.pickup.longitude), 52.5163, 13.3777 FROM r RETURNING id
                """,
                logger: Self.logger
            ).collect().first
            let orderID = try #require(try row?.decode(UUID.self))
            let store = PostgresRideStore(executor: client, logger: Self.logger)
            var inPostgres: [Outcome] = []
            for _ in expected {
                let outcome = try #require(try await Self.round(store, orderID))
                inPostgres.append(Outcome(outcome, names: names))
            }
            #expect(inPostgres == expected)
            // The offers as written: rank by distance within the round, the round's number, open for the TTL.
            let offers = try await client.query(
                """
                SELECT u.name || ' ' || f.round || ' ' || f.rank
                       || ' ' || (abs(extract(epoch FROM f.expires_at - f.offered_at) - 20) < 1)
                FROM order_offers f JOIN users u ON u.id = f.driver_id WHERE f.order_id = \(orderID)
                ORDER BY f.round, f.rank
                """,
                logger: Self.logger
            ).collect().map { try $0.decode(String.self) }
            #expect(offers == ["near 1 1 true", "middle 2 1 true", "second-middle 2 2 true"])
            // Each offer's event reached the log (the event trigger at the statement's end), with the order's round.
            let events = try await client.query(
                """
                SELECT count(*)::int FROM order_events e
                JOIN order_offers f ON f.order_id = e.order_id AND f.driver_id = e.driver_id
                WHERE e.order_id = \(orderID) AND e.kind = 'offer.new'
                  AND (e.payload -> 'order' ->> 'dispatch_round')::int = f.round
                """,
                logger: Self.logger
            ).collect().first?.decode(Int.self)
            #expect(events == 3)
            try await client.query("UPDATE orders SET status = 'CANCELLED' WHERE id = \(orderID)", logger: Self.logger)
            #expect(try await Self.round(store, orderID) == nil)
            let rounds = try await client.query(
                "SELECT dispatch_round FROM orders WHERE id = \(orderID)", logger: Self.logger
            ).collect().first?.decode(Int.self)
            #expect(rounds == 4, "a round of an order no longer NEW changes nothing")
        }
    }

    static func round(_ store: some RideStore, _ orderID: UUID) async throws -> DispatchRoundOutcome? {
        try await store.runDispatchRound(
            orderID: orderID,
            pickup: Self.pickup,
            radius: Self.radius,
            limit: 2,
            search: DriverSearch(maxPositionAge: .seconds(120), excludingOffersOf: orderID),
            ttl: Self.ttl
        )
    }
}

extension DispatchRoundStatementTests.Outcome {
    init(_ outcome: DispatchRoundOutcome, names: [UUID: String]) {
        self.init(
            number: outcome.number,
            drivers: outcome.drivers.map { names[$0] ?? "\($0)" },
            lastOfferedRound: outcome.lastOfferedRound
        )
    }
}
