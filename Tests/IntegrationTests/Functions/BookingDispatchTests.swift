import Foundation
import Functions
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing
import TriggerRuntime

/// The API's booking runs the order's first dispatch round and sets its timers in its own statement
/// (`PreparedStatements.BookAndOffer`, calling `trigger_runtime.schedule_timer()`): these run the API alone
/// (``BackendHarness``: no worker), so an offer, a timer or a delivery seen here is the booking's own doing.
@Suite("Functions: a booking runs its first dispatch round")
struct BookingDispatchTests {
    /// A driver available at the booking's pickup (APITests.book's), with a fresh position.
    static func driverAtPickup(_ h: BackendHarness, _ name: String, device: String, north: Double = 0.0001)
        async throws -> (id: String, token: String)
    {
        let driver = try await h.api.driver(name, device: device)
        try await h.client.query(
            """
            INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
            VALUES (\(UUID(uuidString: driver.id)!), \(52.52 + north), 13.4051, now())
            """,
            logger: BackendHarness.logger
        )
        return driver
    }

    static func strings(_ h: BackendHarness, _ sql: String) async throws -> [String] {
        try await h.client.query(PostgresQuery(unsafeSQL: sql), logger: BackendHarness.logger).collect()
            .map { try $0.decode(String.self) }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Each timer's function and how many seconds after the order's booking it is due.
    static func dueAfterBooking(_ h: BackendHarness) async throws -> [String] {
        try await h.client.query(
            """
            SELECT t.function_name, extract(epoch FROM t.due_at - o.created_at)::float8
            FROM trigger_runtime.timers t JOIN orders o ON o.id::text = t.document_key ORDER BY 1
            """,
            logger: BackendHarness.logger
        ).collect().map { row in
            let (function, seconds) = try row.decode((String, Double).self)
            return "\(function) \(seconds)"
        }
    }

    @Test("the booking answers with its offers committed: the driver sees the offer, the round and window timers are set, dispatchOrder gets no delivery")
    func offersCommitWithTheOrder() async throws {
        try await BackendHarness.with { h in
            let rider = try await h.api.rider()
            let farther = try await Self.driverAtPickup(h, "Fay", device: "DEV-2", north: 0.002)
            let dana = try await Self.driverAtPickup(h, "Dana", device: "DEV-1")
            let booked = try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token)
            #expect(booked.status == 201)
            #expect(booked.json["status"] == "NEW")
            let order = try #require(booked.json["id"].stringValue).lowercased()

            // No worker runs here: the offers are already there when the booking answered, nearest first.
            for driver in [dana, farther] {
                let offers = try await h.api.send(.GET, "/v1/offers", token: driver.token)
                #expect(offers.json["offers"].arrayValue.map { $0["id"].stringValue?.lowercased() } == [order])
            }
            #expect(try await Self.strings(h, "SELECT dispatch_round::text FROM orders") == ["1"])
            #expect(
                try await Self.strings(
                    h, "SELECT driver_id::text || ' ' || round::text || ' ' || rank::text FROM order_offers ORDER BY rank"
                ) == ["\(dana.id.lowercased()) 1 1", "\(farther.id.lowercased()) 1 2"]
            )
            // Each offer's event carries the order the same statement inserted (its trigger ran at the statement's end).
            #expect(
                try await Self.strings(h, "SELECT payload->'order'->>'id' FROM order_events WHERE kind = 'offer.new'")
                    == [order, order]
            )
            let timers = try await Self.strings(
                h,
                "SELECT function_name || ' ' || timer_key || ' ' || document_key FROM trigger_runtime.timers ORDER BY 1"
            )
            #expect(timers == ["dispatchRound round \(order)", "dispatchWindow window \(order)"])
            // Due as Dispatcher sets them: the round when the offers expire, the window after the booking.
            let dispatch = h.backend.configuration.dispatch
            #expect(
                try await Self.dueAfterBooking(h) == [
                    "dispatchRound \(Self.seconds(dispatch.offerTTL))", "dispatchWindow \(Self.seconds(dispatch.window))",
                ]
            )
            let deliveries = try await Self.strings(
                h, "SELECT function_name FROM trigger_runtime.deliveries WHERE table_name LIKE '%orders'"
            )
            #expect(!deliveries.contains("dispatchOrder"), "\(deliveries)")
        }
    }

    @Test("a booking with nobody near still runs round 1 (no offer) and sets both timers")
    func nobodyNear() async throws {
        try await BackendHarness.with { h in
            let rider = try await h.api.rider()
            let booked = try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token)
            #expect(booked.status == 201)
            #expect(try await Self.strings(h, "SELECT dispatch_round::text FROM orders") == ["1"])
            #expect(try await Self.strings(h, "SELECT order_id::text FROM order_offers").isEmpty)
            let dispatch = h.backend.configuration.dispatch
            #expect(
                try await Self.dueAfterBooking(h) == [
                    "dispatchRound \(Self.seconds(dispatch.delay(afterEmptyRounds: 1)))",
                    "dispatchWindow \(Self.seconds(dispatch.window))",
                ]
            )
        }
    }

    @Test("with HyperTrack's Nearby API the booking writes the order alone and dispatchOrder gets its delivery")
    func nearbyLeavesItToTheFunction() async throws {
        var configuration = Backend.Configuration(webhook: .init(secret: "whsec-test"))
        configuration.dispatch.useNearbyAPI = true
        try await BackendHarness.with(configuration: configuration) { h in
            let rider = try await h.api.rider()
            _ = try await Self.driverAtPickup(h, "Dana", device: "DEV-1")
            let booked = try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token)
            #expect(booked.status == 201)
            let order = try #require(booked.json["id"].stringValue).lowercased()
            #expect(try await Self.strings(h, "SELECT dispatch_round::text FROM orders") == ["0"])
            #expect(try await Self.strings(h, "SELECT order_id::text FROM order_offers").isEmpty)
            #expect(try await Self.strings(h, "SELECT function_name FROM trigger_runtime.timers").isEmpty)
            #expect(
                try await Self.strings(
                    h, "SELECT function_name || ' ' || document_key FROM trigger_runtime.deliveries WHERE function_name = 'dispatchOrder'"
                ) == ["dispatchOrder \(order)"]
            )
        }
    }

    @Test("a booking whose first round fails writes nothing: no order, no offer, no timer")
    func failedRoundWritesNothing() async throws {
        try await BackendHarness.with { h in
            let rider = try await h.api.rider()
            _ = try await Self.driverAtPickup(h, "Dana", device: "DEV-1")
            // The window timer's function uninstalled: the round's last write (the window timer) fails.
            try await TriggerInstaller(client: h.client, logger: BackendHarness.logger)
                .install(
                    Backend.bindings.filter { $0.name != DispatchWindow.name },
                    channel: h.backend.configuration.channel
                )
            let booked = try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token)
            #expect(booked.status == 500)
            #expect(booked.json["status"] == 500 && booked.json["title"] != .null)
            #expect(try await Self.strings(h, "SELECT id::text FROM orders").isEmpty)
            #expect(try await Self.strings(h, "SELECT order_id::text FROM order_offers").isEmpty)
            #expect(try await Self.strings(h, "SELECT function_name FROM trigger_runtime.timers").isEmpty)
            #expect(try await Self.strings(h, "SELECT kind FROM order_events").isEmpty)

            // Installed again, the same rider books (nothing of the failed one stands in the way).
            try await TriggerInstaller(client: h.client, logger: BackendHarness.logger)
                .install(Backend.bindings, channel: h.backend.configuration.channel)
            #expect(try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token).status == 201)
            #expect(try await Self.strings(h, "SELECT count(*)::text FROM order_offers") == ["1"])
        }
    }
}
