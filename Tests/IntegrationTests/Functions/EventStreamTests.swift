import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing
import TriggerRuntime

/// The apps' server-sent-event streams over real HTTP on loopback, fed by the order event log on a real
/// PostgreSQL through the process's one LISTEN.
@Suite("Functions: order event streams (SSE)", .timeLimit(.minutes(10)))
struct EventStreamTests {
    static let rideStatuses: [JSONValue] = [
        "NEW", "ACCEPTED", "PICKING_UP", "REACHED_PICKUP", "STARTED_RIDE", "DROPPING_OFF", "REACHED_DROPOFF",
        "COMPLETED",
    ]

    static func url(_ h: RideHarness, _ path: String) throws -> String {
        let port = try #require(h.port, "the harness must serve real HTTP (live: true)")
        return "http://localhost:\(port)\(path)"
    }

    /// The statuses of `order` among a stream's events, in the order they came.
    static func statuses(_ events: [SSEClient.Event], order: String) -> [JSONValue] {
        events.filter { $0.name == "order.status" && $0.json["order"]["id"].stringValue == order }
            .map { $0.json["order"]["status"] }
    }

    /// The events of `events` whose id is at most `id`.
    static func upTo(_ id: Int64, _ events: [SSEClient.Event]) -> [SSEClient.Event] {
        events.filter { ($0.id.flatMap { Int64($0) } ?? .max) <= id }
    }

    /// Drives an accepted ride (PICKING_UP) to COMPLETED with its summary through webhooks and the driver's steps.
    static func finishRide(
        _ h: RideHarness,
        _ tracking: FakeTripTracking,
        rider: String,
        driver: String,
        order: String,
        whileDisconnected: (@Sendable () async throws -> Void)? = nil
    ) async throws {
        let pickupTrip = try #require(tracking.trips.first)
        try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: pickupTrip)])
        try await h.eventually("REACHED_PICKUP") {
            try await h.order(order, token: rider)["status"] == "REACHED_PICKUP"
        }
        #expect(try await h.api.send(.POST, "/v1/orders/\(order)/start", token: driver).status == 200)
        try await h.eventually("DROPPING_OFF") { try await h.order(order, token: rider)["status"] == "DROPPING_OFF" }
        try await whileDisconnected?()
        let dropoffTrip = try #require(tracking.trips.last)
        try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: dropoffTrip)])
        try await h.eventually("REACHED_DROPOFF") {
            try await h.order(order, token: rider)["status"] == "REACHED_DROPOFF"
        }
        #expect(try await h.api.send(.POST, "/v1/orders/\(order)/complete", token: driver).status == 200)
        let summary: JSONValue = [
            "distance": 1500, "duration": 300, "locations": ["type": "LineString", "coordinates": []],
        ]
        try await h.webhook([
            RideHarness.tripEvent("completed", trip: pickupTrip, summary: summary),
            RideHarness.tripEvent("completed", trip: dropoffTrip, summary: summary),
        ])
        try await h.eventually("the summary") { try await h.order(order, token: rider)["summary"]["pickup"] != .null }
    }

    @Test("a rider's stream gets every status of the ride in order, legs and summary; another rider's gets none of it")
    func everyStatusInOrder() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking, live: true) { h in
            let rider = try await h.api.rider("Ria")
            let other = try await h.api.rider("Otto")
            let riderStream = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: rider.token)
            #expect(riderStream.status == 200)
            #expect(riderStream.contentType?.hasPrefix("text/event-stream") == true)
            let otherStream = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: other.token)

            let (riderToken, driver, order) = try await RideTests.acceptedRide(h, tracking, rider: rider)
            try await Self.finishRide(h, tracking, rider: riderToken, driver: driver, order: order)
            let summary = try await riderStream.waitForEvent("order.summary") { $0.name == "order.summary" }
            #expect(summary.json["order"]["summary"]["fare"]["currency"] == "EUR")
            let events = riderStream.events
            #expect(Self.statuses(events, order: order) == Self.rideStatuses)
            let ids = events.compactMap { $0.id.flatMap { Int64($0) } }
            #expect(ids.count == events.count, "every order event has an id")
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "ids increase: \(ids)")
            #expect(events.contains { $0.name == "order.legs" && $0.json["order"]["legs"].arrayValue.count == 2 })
            #expect(!events.contains { $0.name.hasPrefix("offer.") }, "offers go to drivers only")

            // The other rider's stream works (their own booking arrives) and never carried the first ride.
            let booked = try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: other.token)
            let otherOrder = try #require(booked.json["id"].stringValue)
            try await otherStream.waitForEvent("the other rider's own booking") {
                $0.json["order"]["id"].stringValue == otherOrder
            }
            #expect(otherStream.events.allSatisfy { $0.json["order"]["id"].stringValue == otherOrder })
            #expect(!otherStream.events.contains { $0.data.contains(order) })
            riderStream.disconnect()
            otherStream.disconnect()
        }
    }

    @Test("disconnected mid-ride, a client resuming with Last-Event-ID misses nothing and repeats nothing")
    func resumeMidRide() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking, live: true) { h in
            let rider = try await h.api.rider("Ria")
            let steady = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: rider.token)
            let phone = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: rider.token)
            let (riderToken, driver, order) = try await RideTests.acceptedRide(h, tracking, rider: rider)
            try await phone.waitForEvent("PICKING_UP") { $0.json["order"]["status"] == "PICKING_UP" }
            let before = phone.events
            let lastID = try #require(before.last?.id)
            phone.disconnect()
            try await Self.finishRide(h, tracking, rider: riderToken, driver: driver, order: order)
            try await steady.waitForEvent("the summary") { $0.name == "order.summary" }

            // The phone comes back out of the tunnel: on its per-order stream, from its last id.
            let resumed = try await SSEClient.connect(
                try Self.url(h, "/v1/orders/\(order)/events"),
                token: riderToken,
                lastEventID: lastID
            )
            try await resumed.waitForEvent("the summary") { $0.name == "order.summary" }
            // Events after the first summary (the second leg's) may still be on their way to either stream: compare
            // both up to the newest id either has seen, once both have it.
            let seen = (steady.events + resumed.events).compactMap { $0.id.flatMap { Int64($0) } }
            let newest = try #require(seen.max())
            for stream in [steady, resumed] {
                try await stream.waitForEvent("event \(newest)") { $0.id.flatMap { Int64($0) } == newest }
            }
            let combined = before + Self.upTo(newest, resumed.events)
            #expect(Self.statuses(combined, order: order) == Self.rideStatuses)
            #expect(
                combined.map(\.id) == Self.upTo(newest, steady.events).map(\.id),
                "the same events as a client that never left"
            )
            #expect(Set(combined.compactMap(\.id)).count == combined.count, "nothing twice")

            // A browser's first connect names the id in the query; a later `timeout` ends the stream cleanly.
            let query = try await SSEClient.connect(
                try Self.url(h, "/v1/orders/\(order)/events?last_event_id=\(lastID)&timeout=1"),
                token: riderToken
            )
            try await query.waitForEnd(timeout: .seconds(30))
            let replayed = Self.upTo(newest, Array(query.events.dropLast()))
            #expect(replayed.map(\.id) == Self.upTo(newest, resumed.events).map(\.id))
            #expect(query.events.last?.name == "stream.closed")
            #expect(query.events.last?.json["reason"] == "timeout")
            steady.disconnect()
            resumed.disconnect()
        }
    }

    @Test("drivers' streams get their offers, the closing of the others' offers, and the ride they accepted")
    func driverOffers() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking, live: true) { h in
            let rider = try await h.api.rider()
            let winner = try await h.api.driver("Dana", device: "DEV-1")
            let loser = try await h.api.driver("Lou", device: "DEV-2")
            for device in ["DEV-1", "DEV-2"] {
                try await h.webhook([
                    RideHarness.locationEvent(device: device, lat: 52.521, lng: 13.405, at: RideHarness.nowText())
                ])
            }
            try await h.eventually("both drivers on the map") {
                try await h.api.send(.GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: rider.token)
                    .json["drivers"].arrayValue.count == 2
            }
            let winnerStream = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: winner.token)
            let loserStream = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: loser.token)
            let booked = try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token)
            let order = try #require(booked.json["id"].stringValue)
            for stream in [winnerStream, loserStream] {
                let offer = try await stream.waitForEvent("the offer") { $0.name == "offer.new" }
                #expect(offer.json["order"]["id"].stringValue == order)
                #expect(offer.json["order"]["status"] == "NEW")
                #expect(offer.json["expires_at"].stringValue != nil)
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/accept", token: winner.token).status == 200)
            try await winnerStream.waitForEvent("PICKING_UP") { $0.json["order"]["status"] == "PICKING_UP" }
            let closed = try await loserStream.waitForEvent("the offer closed") { $0.name == "offer.closed" }
            #expect(closed.json == ["order_id": .string(order), "reason": "taken"])
            #expect(!loserStream.events.contains { $0.name == "order.status" }, "the ride is not the loser's")
            #expect(!winnerStream.events.contains { $0.name == "offer.closed" })
            // A stranger's per-order stream is a 404, as the order itself.
            let stranger = try await h.api.rider("Stan")
            let denied = try await h.api.send(.GET, "/v1/orders/\(order)/events", token: stranger.token)
            #expect(denied.status == 404)
            winnerStream.disconnect()
            loserStream.disconnect()
        }
    }

    @Test("events committed out of id order all reach a resuming client: ids are given after commit")
    func outOfOrderCommits() async throws {
        try await RideHarness.with(tracking: FakeTripTracking(), live: true) { h in
            let driver = try await h.api.driver("Dana", device: "DEV-1")
            let driverID = try #require(
                UUID(
                    uuidString: try await h.api.send(.GET, "/v1/me", token: driver.token)
                        .json["id"].stringValue ?? ""
                )
            )
            let stream = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: driver.token)
            let logger = BackendHarness.logger
            let (first, second) = (UUID(), UUID())
            func append(_ order: UUID, _ reason: String, on connection: PostgresConnection) async throws {
                let payload = #"{"order_id":"\#(order.uuidString.lowercased())","reason":"\#(reason)"}"#
                try await connection.query(
                    "SELECT order_event_append(\(order), 'offer.closed', NULL, \(driverID), \(payload)::jsonb)",
                    logger: logger
                )
            }
            try await h.client.withConnection { early in
                // The early transaction writes first (the smaller id) and commits last.
                try await early.query("BEGIN", logger: logger)
                try await append(first, "declined", on: early)
                try await h.client.withTransaction(logger: logger) { late in
                    try await append(second, "expired", on: late)
                }
                try await stream.waitForEvent("the later transaction's event") { $0.data.contains("expired") }
                stream.disconnect()
                try await early.query("COMMIT", logger: logger)
            }
            let ids = try await h.client.query(
                """
                SELECT e.id, p.position FROM order_events e LEFT JOIN order_event_positions p ON p.event_id = e.id
                WHERE e.kind = 'offer.closed' ORDER BY e.id
                """,
                logger: logger
            ).collect().map { try $0.decode((Int64, Int64?).self) }
            #expect(ids.count == 2)
            #expect(ids.first?.0 ?? 0 < ids.last?.0 ?? 0, "the early transaction has the smaller id")
            let lastSeen = try #require(stream.events.last?.id)
            let resumed = try await SSEClient.connect(
                try Self.url(h, "/v1/events"),
                token: driver.token,
                lastEventID: lastSeen
            )
            let missed = try await resumed.waitForEvent("the early transaction's event") {
                $0.data.contains("declined")
            }
            #expect((Int64(missed.id ?? "") ?? 0) > (Int64(lastSeen) ?? 0), "its id comes after the one already seen")
            #expect(!resumed.events.contains { $0.data.contains("expired") }, "nothing twice")
            resumed.disconnect()
        }
    }

    @Test("an event's frame is the same on every party's stream (one rendering); a share page's is its own")
    func oneRenderingPerKind() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking, live: true) { h in
            let (rider, driver, order) = try await RideTests.acceptedRide(h, tracking)
            let shared = try await h.api.send(.POST, "/v1/orders/\(order)/share", token: rider)
            let path = try #require(shared.json["url"].stringValue)
            // The rider on two devices, the driver, and the share page: four streams the hub hands one read to.
            let phone = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: rider)
            let tablet = try await SSEClient.connect(try Self.url(h, "/v1/orders/\(order)/events"), token: rider)
            let driverStream = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: driver)
            let page = try await SSEClient.connect(try Self.url(h, path + "/events"))
            _ = try await page.waitForEvent("the page's snapshot") { $0.name == "share.order" }

            let pickupTrip = try #require(tracking.trips.first)
            try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: pickupTrip)])
            let reached: @Sendable (SSEClient.Event) -> Bool = {
                $0.name == "order.status" && $0.json["order"]["status"] == "REACHED_PICKUP"
            }
            let onPhone = try await phone.waitForEvent("REACHED_PICKUP on the rider's phone", reached)
            let onTablet = try await tablet.waitForEvent("REACHED_PICKUP on the rider's order stream", reached)
            let onDriver = try await driverStream.waitForEvent("REACHED_PICKUP on the driver's", reached)
            #expect(onPhone.id != nil)
            #expect(onTablet == onPhone)
            #expect(onDriver == onPhone)
            let onPage = try await page.waitForEvent("REACHED_PICKUP on the share page") {
                $0.name == "share.order" && $0.json["status"] == "REACHED_PICKUP"
            }
            #expect(onPage.id == onPhone.id, "the same log event")
            #expect(onPage.data != onPhone.data)
            #expect(!page.events.contains { $0.name == "order.status" }, "the page never gets a party's frame")
            #expect(!phone.events.contains { $0.name == "share.order" }, "a party never gets the page's frame")
            for stream in [phone, tablet, driverStream, page] { stream.disconnect() }
        }
    }

    @Test("bad stream parameters are problems naming the field; nothing opens")
    func badInput() async throws {
        try await RideHarness.with(tracking: FakeTripTracking()) { h in
            let rider = try await h.api.rider()
            for (path, headers, field) in [
                ("/v1/events?timeout=0", [(String, String)](), "timeout"),
                ("/v1/events?timeout=86401", [], "timeout"),
                ("/v1/events?timeout=soon", [], "timeout"),
                ("/v1/events?last_event_id=-1", [], "last_event_id"),
                ("/v1/events", [("Last-Event-ID", "latest")], "Last-Event-ID"),
                ("/v1/orders/\(UUID())/events?timeout=0", [], "order"),
            ] {
                let reply = try await h.api.send(.GET, path, token: rider.token, headers: headers)
                if field == "order" {
                    #expect(reply.status == 404, "\(path)")
                } else {
                    #expect(reply.status == 422, "\(path): \(reply.json)")
                    #expect(reply.json["detail"].stringValue?.hasPrefix(field) == true, "\(path): \(reply.json)")
                }
            }
            #expect(try await h.api.send(.GET, "/v1/events").status == 401)
        }
    }

    @Test("a server shutting down ends its open streams with stream.closed (shutdown) instead of waiting for them")
    func shutdown() async throws {
        let stream = try await RideHarness.with(tracking: FakeTripTracking(), live: true) { h in
            let rider = try await h.api.rider()
            let stream = try await SSEClient.connect(try Self.url(h, "/v1/events"), token: rider.token)
            _ = try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token)
            try await stream.waitForEvent("the booking") { $0.name == "order.status" }
            return stream
        }
        try await stream.waitForEnd(timeout: .seconds(10))
        #expect(stream.events.last?.name == "stream.closed")
        #expect(stream.events.last?.json["reason"] == "shutdown")
    }

    @Test("resuming from before the retention gets stream.reset, then what is left")
    func resetAfterRetention() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking, live: true) { h in
            let rider = try await h.api.rider()
            let booked = try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token)
            let order = try #require(booked.json["id"].stringValue)
            try await h.eventually("the booking's event is sequenced") {
                try await h.client.query(
                    "SELECT count(*)::int FROM order_event_positions",
                    logger: BackendHarness.logger
                ).collect().first?.decode(Int.self) == 1
            }
            try await h.client.query(
                "UPDATE order_events SET created_at = now() - interval '25 hours'",
                logger: BackendHarness.logger
            )
            try await h.client.withTransaction(logger: BackendHarness.logger) { connection in
                let context = FunctionContext(
                    eventID: 1,
                    functionName: PruneOrderEvents.name,
                    operation: .tick,
                    table: "",
                    documentKey: "",
                    commitTime: Date(),
                    attempt: 1,
                    logger: BackendHarness.logger,
                    transaction: connection
                )
                try await PruneOrderEvents(retention: .seconds(24 * 3600)).run(
                    ScheduleTick(scheduledAt: Date()),
                    context: context
                )
            }
            #expect(
                try await h.client.query("SELECT count(*)::int FROM order_events", logger: BackendHarness.logger)
                    .collect().first?.decode(Int.self) == 0
            )
            #expect(
                try await h.api.send(
                    .POST,
                    "/v1/orders/\(order)/cancel",
                    json: ["reason": "changed plans"],
                    token: rider.token
                ).status == 200
            )
            try await h.eventually("the cancellation is sequenced") {
                try await h.client.query(
                    "SELECT count(*)::int FROM order_event_positions",
                    logger: BackendHarness.logger
                ).collect().first?.decode(Int.self) == 1
            }
            let stream = try await SSEClient.connect(
                try Self.url(h, "/v1/events"),
                token: rider.token,
                lastEventID: "0"
            )
            let events = try await stream.waitForEvents(2)
            #expect(events[0].name == "stream.reset")
            #expect(events[0].json["reason"] == "events_expired")
            #expect(events[0].id == nil)
            #expect(events[1].json["order"]["status"] == "CANCELLED")
            stream.disconnect()
        }
    }
}
