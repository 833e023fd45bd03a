import Foundation
import FunctionsTesting
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

@testable import Functions

/// The location path: positions are applied by the webhook intake, in the delivery's transaction (no delivery of a
/// function per position).
@Suite("Functions: location events applied at intake", .timeLimit(.minutes(10)))
struct LocationIngestTests {
    static func latitude(device: Int, delivery: Int) -> Double {
        52.5 + Double(device) / 100 + Double(delivery) / 10_000
    }

    /// Delivery `k`: one position of every device at `start + k` s, the devices in a different order each time
    /// (rotated, every other one reversed): two transactions taking the same drivers' rows in opposite orders
    /// deadlock unless the rows are locked in one order.
    static func delivery(_ k: Int, devices: [String], start: Date) -> [JSONValue] {
        let time = ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(k)))
        let rotation = k % devices.count
        var order: [Int] = Array(rotation..<devices.count) + Array(0..<rotation)
        if k % 2 == 1 { order.reverse() }
        return order.map { index in
            RideHarness.locationEvent(device: devices[index], lat: Self.latitude(device: index, delivery: k), lng: 13.4, at: time)
        }
    }

    /// Eight signed-in drivers with devices `PREFIX-0` … `PREFIX-7`; returns the device ids.
    static func drivers(_ h: RideHarness, prefix: String) async throws -> [String] {
        let devices = (0..<8).map { "\(prefix)-\($0)" }
        for device in devices { _ = try await h.api.driver("Dana", device: device) }
        return devices
    }

    /// Gives each device an open leg (a drive in progress, as far as the intake's inbox is concerned), so its
    /// location events are stored (``M0028DriveLocations``); `ended` makes it a leg whose drive ended that many
    /// seconds ago, and `requested` one whose completion was requested then but has not completed.
    static func legs(_ h: RideHarness, devices: [String], ended: Int? = nil, requested: Int? = nil) async throws {
        for device in devices {
            let completedAt = ended.map { "now() - make_interval(secs => \($0))" } ?? "NULL"
            let requestedAt = requested.map { "now() - make_interval(secs => \($0))" } ?? "NULL"
            try await h.client.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO order_legs (order_id, leg, device_id, trip_id, status, created_at,
                                                completion_requested_at, completed_at)
                        VALUES (gen_random_uuid(), 'pickup', '\(device)', gen_random_uuid()::text,
                                \(ended == nil ? "'active'" : "'completed'"), now() - interval '10 minutes',
                                \(requestedAt), \(completedAt))
                        """
                ),
                logger: BackendHarness.logger
            )
        }
    }

    /// A ride harness whose webhook deliveries are applied as `apply` says (in the request or by the worker).
    static func with(
        _ apply: Backend.Configuration.Webhook.Apply,
        _ body: @escaping @Sendable (RideHarness) async throws -> Void
    ) async throws {
        var configuration = RideHarness.configuration
        configuration.webhook.apply = apply
        try await RideHarness.with(tracking: FakeTripTracking(), configuration: configuration, body)
    }

    static func expectNewest(_ h: RideHarness, devices: [String], delivery: Int) async throws {
        for (index, device) in devices.enumerated() {
            let rows = try await h.client.query(
                """
                SELECT p.lat FROM driver_positions p JOIN users u ON u.id = p.driver_id
                WHERE u.device_id = \(device)
                """,
                logger: BackendHarness.logger
            )
            var lat: Double?
            for try await value in rows.decode(Double.self) { lat = value }
            let expected = Self.latitude(device: index, delivery: delivery)
            #expect(abs((lat ?? 0) - expected) < 1e-9, "\(device)")
        }
    }

    @Test(
        "positions apply a delivery at a time (in the request, or by applyWebhookDelivery), not an event at a time by onTripWebhook",
        arguments: Backend.Configuration.Webhook.Apply.allCases
    )
    func inOrderPerDevice(apply: Backend.Configuration.Webhook.Apply) async throws {
        try await Self.with(apply) { h in
            let devices = try await Self.drivers(h, prefix: "LOC")
            // Half of them on a drive: only their locations are stored; every driver moves.
            try await Self.legs(h, devices: Array(devices.prefix(4)))
            let start = Date().addingTimeInterval(-60)
            let deliveries = 24
            for k in 0..<deliveries {
                #expect(try await h.webhook(Self.delivery(k, devices: devices, start: start)).status == 202)
                if k == 0 {
                    try await h.webhooksApplied()
                    try await Self.expectNewest(h, devices: devices, delivery: 0)
                }
            }
            try await h.webhooksApplied()
            let total = deliveries * 4
            #expect(
                try await DispatchTests.int(h, "SELECT count(*)::int FROM webhook_events WHERE processed_at IS NOT NULL")
                    == total
            )
            let outcomes = try await h.client.query(
                "SELECT outcome, count(*)::int FROM webhook_events GROUP BY outcome",
                logger: BackendHarness.logger
            )
            var counts: [String: Int] = [:]
            for try await (outcome, count) in outcomes.decode((String?, Int).self) { counts[outcome ?? "-"] = count }
            // In the request, each delivery applies before the next is sent; in the worker they apply side by side,
            // not in the order sent, and one applied after a newer one moves nobody.
            if apply == .request { #expect(counts == [ApplyWebhookDelivery.positionApplied: total]) }
            #expect(counts.values.reduce(0, +) == total)
            #expect(Set(counts.keys).isSubset(of: [ApplyWebhookDelivery.positionApplied, ApplyWebhookDelivery.positionIgnored]))
            #expect(counts[ApplyWebhookDelivery.positionApplied, default: 0] >= 4, "\(counts)")
            try await Self.expectNewest(h, devices: devices, delivery: deliveries - 1)
            #expect(
                try await DispatchTests.int(
                    h,
                    """
                    SELECT ((SELECT count(*) FROM trigger_runtime.deliveries WHERE function_name = 'onTripWebhook')
                          + (SELECT count(*) FROM trigger_runtime.done WHERE function_name = 'onTripWebhook'))::int
                    """
                ) == 0
            )
            #expect(
                try await DispatchTests.int(h, "SELECT count(*)::int FROM trigger_runtime.deliveries WHERE status = 'dead'")
                    == 0
            )
            // Not even a call of the capture function: the inbox's trigger skips them in its WHEN.
            let definition = try await h.client.query(
                """
                SELECT pg_get_triggerdef(oid) FROM pg_trigger
                WHERE tgrelid = 'webhook_events'::regclass AND tgname = 'trigger_runtime_capture'
                """,
                logger: BackendHarness.logger
            )
            var definitions: [String] = []
            for try await text in definition.decode(String.self) { definitions.append(text) }
            #expect(definitions.count == 1)
            #expect(definitions.allSatisfy { $0.contains("WHEN") && $0.contains("'destination_arrival'") }, "\(definitions)")
        }
    }

    @Test(
        "one delivery naming a device several times: its latest-recorded location applies (a tie: the later event); a location with no time is stored, applied nowhere",
        arguments: Backend.Configuration.Webhook.Apply.allCases
    )
    func newestOfADeliveryApplies(apply: Backend.Configuration.Webhook.Apply) async throws {
        try await Self.with(apply) { h in
            let devices = Array(try await Self.drivers(h, prefix: "NEW").prefix(3))
            try await Self.legs(h, devices: devices)
            let start = Date().addingTimeInterval(-60)
            func at(_ seconds: Double) -> String {
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                return formatter.string(from: start.addingTimeInterval(seconds))
            }
            var timeless = RideHarness.locationEvent(device: devices[2], lat: 52.9, lng: 13.4, at: at(0))
            if case .object(var members) = timeless {
                members["created_at"] = nil
                members["recorded_at"] = nil
                timeless = .object(members)
            }
            let events: [JSONValue] = [
                RideHarness.locationEvent(device: devices[0], lat: 52.1, lng: 13.4, at: at(10)),
                RideHarness.locationEvent(device: devices[0], lat: 52.3, lng: 13.4, at: at(30.000_001)),
                RideHarness.locationEvent(device: devices[0], lat: 52.2, lng: 13.4, at: at(20)),
                RideHarness.locationEvent(device: devices[1], lat: 52.4, lng: 13.4, at: at(5)),
                RideHarness.locationEvent(device: devices[1], lat: 52.5, lng: 13.4, at: at(5)),
                timeless,
            ]
            #expect(try await h.webhook(events).status == 202)
            try await h.webhooksApplied()
            let rows = try await h.client.query(
                """
                SELECT event_index, outcome, latitude, (recorded_at IS NULL) FROM webhook_events ORDER BY event_index
                """,
                logger: BackendHarness.logger
            )
            var seen: [String] = []
            for try await (index, outcome, latitude, timeless) in rows.decode((Int, String?, Double?, Bool).self) {
                seen.append("\(index) \(outcome ?? "-") \(latitude.map { "\($0)" } ?? "-")\(timeless ? " no time" : "")")
            }
            let (applied, ignored) = (ApplyWebhookDelivery.positionApplied, ApplyWebhookDelivery.positionIgnored)
            #expect(
                seen == [
                    "0 \(ignored) 52.1", "1 \(applied) 52.3", "2 \(ignored) 52.2", "3 \(ignored) 52.4",
                    "4 \(applied) 52.5", "5 \(ignored) 52.9 no time",
                ]
            )
            var positions: [String: Double] = [:]
            for try await (device, lat) in try await h.client.query(
                """
                SELECT u.device_id, p.lat FROM driver_positions p JOIN users u ON u.id = p.driver_id
                WHERE u.device_id LIKE 'NEW-%'
                """,
                logger: BackendHarness.logger
            ).decode((String, Double).self) {
                positions[device] = lat
            }
            #expect(positions == [devices[0]: 52.3, devices[1]: 52.5])
        }
    }

    @Test("device statuses apply with their delivery too: the newest per device, an older one ignored, not by onTripWebhook")
    func deviceStatuses() async throws {
        @Sendable func status(_ device: String?, _ value: String?, at seconds: Double) -> JSONValue {
            var event: [String: JSONValue] = [
                "created_at": .string(ISO8601DateFormatter().string(from: Date(timeIntervalSinceNow: seconds))),
                "recorded_at": .string(ISO8601DateFormatter().string(from: Date(timeIntervalSinceNow: seconds))),
                "type": "device_status", "data": value.map { ["value": .string($0)] } ?? [:], "version": "2.0.0",
            ]
            if let device { event["device_id"] = .string(device) }
            return .object(event)
        }
        try await RideHarness.with(tracking: FakeTripTracking()) { h in
            let devices = try await Self.drivers(h, prefix: "ST")
            // Device 0: inactive then active in one delivery (the newer, active, wins whatever the order sent).
            // Device 1: disconnected now; then a delivery with an older active, which changes nothing.
            #expect(
                try await h.webhook([
                    status(devices[0], "active", at: -10), status(devices[0], "inactive", at: -20),
                    status(devices[1], "disconnected", at: -5), status(devices[2], "sleeping", at: -5),
                    status(nil, "active", at: -5), status("NOT-A-DRIVER", "active", at: -5),
                ]).status == 202
            )
            // Applied before the next is sent: the outcomes below are in the deliveries' order.
            try await h.webhooksApplied()
            #expect(try await h.webhook([status(devices[1], "active", at: -30)]).status == 202)
            try await h.webhooksApplied()
            let states = try await h.client.query(
                "SELECT device_id, device_status FROM users WHERE device_id = ANY(\(Array(devices[0...1])))",
                logger: BackendHarness.logger
            )
            var state: [String: String] = [:]
            for try await (device, value) in states.decode((String, String?).self) { state[device] = value ?? "-" }
            #expect(state == [devices[0]: "active", devices[1]: "disconnected"])
            let outcomes = try await h.client.query(
                "SELECT outcome FROM webhook_events WHERE processed_at IS NOT NULL ORDER BY id",
                logger: BackendHarness.logger
            )
            var seen: [String] = []
            for try await outcome in outcomes.decode(String.self) { seen.append(outcome) }
            #expect(
                seen == [
                    "applied: device active", "ignored: unknown device or a newer status is recorded",
                    "applied: device disconnected", "ignored: device_status sleeping is not a tracking state",
                    "ignored: device_status without device or value",
                    "ignored: unknown device or a newer status is recorded",
                    "ignored: unknown device or a newer status is recorded",
                ]
            )
            #expect(
                try await DispatchTests.int(
                    h,
                    """
                    SELECT ((SELECT count(*) FROM trigger_runtime.deliveries WHERE function_name = 'onTripWebhook')
                          + (SELECT count(*) FROM trigger_runtime.done WHERE function_name = 'onTripWebhook'))::int
                    """
                ) == 0
            )
        }
    }

    @Test(
        "events onTripWebhook does not act on are written handled, with its outcome; the others fire it: every row one or the other",
        arguments: Backend.Configuration.Webhook.Apply.allCases
    )
    func unhandledEventsWrittenHandled(apply: Backend.Configuration.Webhook.Apply) async throws {
        @Sendable func event(_ type: String, _ value: String, trip: String? = nil) -> JSONValue {
            var data: [String: JSONValue] = ["value": .string(value)]
            if let trip { data["trip_id"] = .string(trip) }
            return [
                "created_at": .string(RideHarness.nowText()), "device_id": "UNH-0", "type": .string(type),
                "data": .object(data), "version": "2.0.0",
            ]
        }
        try await Self.with(apply) { h in
            let events: [JSONValue] = [
                event("trip", "created", trip: "T-UNH"), event("trip", "geofence_enter", trip: "T-UNH"),
                event("trip", "destination_arrival", trip: "T-UNH"), event("battery", "low"),
                event("trip", "completed", trip: "T-UNH"), event("device_status", "active"),
                RideHarness.locationEvent(device: "UNH-0", lat: 52.5, lng: 13.4, at: RideHarness.nowText()),
            ]
            #expect(try await h.webhook(events).status == 202)
            try await h.webhooksApplied()
            // What the inbox wrote handled, read before the worker ran onTripWebhook on anything: a row it handles
            // is unprocessed until then or carries its (waiting) outcome, never the inbox's.
            let rows = try await h.client.query(
                "SELECT event_index, type, outcome FROM webhook_events WHERE processed_at IS NOT NULL",
                logger: BackendHarness.logger
            )
            var handled: [Int: String] = [:]
            for try await (index, type, outcome) in rows.decode((Int, String, String?).self)
            where type != "location" && type != "device_status" {
                handled[index] = outcome ?? "-"
            }
            let ignored = { (type: String, value: String) in OnTripWebhook.unhandledOutcome(type: type, value: value) }
            #expect(
                handled.filter { !$0.value.hasPrefix("waiting") } == [
                    0: ignored("trip", "created"), 1: ignored("trip", "geofence_enter"), 3: ignored("battery", "low"),
                ]
            )
            // The arrival and the completion fire onTripWebhook (its trip is unknown: they wait for its leg); the
            // rest do not.
            let captured: PostgresQuery = """
                SELECT ((SELECT count(*) FROM trigger_runtime.deliveries WHERE function_name = 'onTripWebhook')
                      + (SELECT count(*) FROM trigger_runtime.done WHERE function_name = 'onTripWebhook'))::int
                """
            #expect(try await DispatchTests.int(h, captured) == 2)
            try await h.eventually("the arrival and the completion handled") {
                try await DispatchTests.int(h, "SELECT count(*)::int FROM webhook_events WHERE processed_at IS NULL") == 0
            }
            let waiting = try await h.client.query(
                "SELECT event_index, outcome FROM webhook_events WHERE event_index IN (2, 4) ORDER BY event_index",
                logger: BackendHarness.logger
            )
            var outcomes: [String] = []
            for try await (index, outcome) in waiting.decode((Int, String?).self) { outcomes.append("\(index) \(outcome ?? "-")") }
            #expect(outcomes.count == 2 && outcomes.allSatisfy { $0.contains("waiting: unknown trip") }, "\(outcomes)")
            #expect(try await DispatchTests.int(h, captured) == 2)
        }
    }

    @Test("concurrent deliveries naming the same drivers in opposite orders: no deadlock, the newest position wins")
    func concurrent() async throws {
        try await RideHarness.with(tracking: FakeTripTracking()) { h in
            let devices = try await Self.drivers(h, prefix: "CON")
            try await Self.legs(h, devices: devices)
            let start = Date().addingTimeInterval(-60)
            let deliveries = 32
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for k in 0..<deliveries {
                    group.addTask { Int(try await h.webhook(Self.delivery(k, devices: devices, start: start)).status) }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses == Array(repeating: 202, count: deliveries))
            try await h.webhooksApplied()
            try await Self.expectNewest(h, devices: devices, delivery: deliveries - 1)
            // Each event is recorded once, handled: applied, or ignored because a newer position had committed.
            #expect(
                try await DispatchTests.int(
                    h,
                    "SELECT count(*)::int FROM webhook_events WHERE processed_at IS NOT NULL AND outcome IS NOT NULL"
                ) == deliveries * devices.count
            )
        }
    }

    @Test(
        "a still driver's report of the same place within a quarter of the position age is applied without a write; later, or moved, it is written",
        arguments: Backend.Configuration.Webhook.Apply.allCases
    )
    func stillDriversWithinTheRefresh(apply: Backend.Configuration.Webhook.Apply) async throws {
        var configuration = RideHarness.configuration
        configuration.webhook.apply = apply
        configuration.dispatch.maxPositionAge = .seconds(120)
        #expect(WebhookStatements.Positions.stillRefresh(maxPositionAge: .seconds(120)) == .seconds(30))
        try await RideHarness.with(tracking: FakeTripTracking(), configuration: configuration) { h in
            let devices = ["STILL", "MOVING", "IDLE"]
            for device in devices { _ = try await h.api.driver("Dana", device: device) }
            // STILL and MOVING on a drive: their location rows are stored, with the outcome the upsert gave them.
            try await Self.legs(h, devices: ["STILL", "MOVING"])
            let start = Date().addingTimeInterval(-100).timeIntervalSince1970.rounded(.down)
            func send(_ seconds: Double, _ places: [String: Double]) async throws {
                let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: start + seconds))
                let events = places.sorted { $0.key < $1.key }.map { device, lat in
                    RideHarness.locationEvent(device: device, lat: lat, lng: 13.4, at: time)
                }
                #expect(try await h.webhook(events).status == 202)
                try await h.webhooksApplied()
            }
            func stored(_ device: String) async throws -> (lat: Double, at: Double) {
                let rows = try await h.client.query(
                    """
                    SELECT p.lat, extract(epoch FROM p.recorded_at)::float8
                    FROM driver_positions p JOIN users u ON u.id = p.driver_id WHERE u.device_id = \(device)
                    """,
                    logger: BackendHarness.logger
                )
                var found: (Double, Double)?
                for try await row in rows.decode((Double, Double).self) { found = row }
                return try #require(found, "\(device) has a position")
            }
            func outcomes(at seconds: Double) async throws -> [String: String] {
                let rows = try await h.client.query(
                    """
                    SELECT device_id, outcome FROM webhook_events
                    WHERE type = 'location' AND recorded_at = to_timestamp(\(start + seconds))
                    """,
                    logger: BackendHarness.logger
                )
                var found: [String: String] = [:]
                for try await (device, outcome) in rows.decode((String, String).self) { found[device] = outcome }
                return found
            }
            let applied = ApplyWebhookDelivery.positionApplied
            let ignored = ApplyWebhookDelivery.positionIgnored

            try await send(0, ["STILL": 52.5, "MOVING": 52.6, "IDLE": 52.7])
            #expect(try await stored("STILL") == (52.5, start))
            // 10 s on: STILL and IDLE where they were (the row stands, not written), MOVING moved.
            try await send(10, ["STILL": 52.5, "MOVING": 52.61, "IDLE": 52.7])
            #expect(try await stored("STILL") == (52.5, start))
            #expect(try await stored("IDLE") == (52.7, start))
            #expect(try await stored("MOVING") == (52.61, start + 10))
            #expect(try await outcomes(at: 10) == ["STILL": applied, "MOVING": applied])
            // 35 s on, past the 30-s refresh since STILL's row was written: written again, though still.
            try await send(35, ["STILL": 52.5, "IDLE": 52.7])
            #expect(try await stored("STILL") == (52.5, start + 35))
            #expect(try await stored("IDLE") == (52.7, start + 35))
            #expect(try await outcomes(at: 35) == ["STILL": applied])
            // An older report of the same place (out of order) is not applied; nor one of another place.
            try await send(20, ["STILL": 52.5])
            #expect(try await outcomes(at: 20) == ["STILL": ignored])
            try await send(5, ["MOVING": 52.9])
            #expect(try await outcomes(at: 5) == ["MOVING": ignored])
            #expect(try await stored("STILL") == (52.5, start + 35))
            #expect(try await stored("MOVING") == (52.61, start + 10))
            // Within the refresh, a report of another place is written at once.
            try await send(40, ["STILL": 52.51])
            #expect(try await stored("STILL") == (52.51, start + 40))
        }
    }

    @Test("0028: a location is stored only where a drive can read it; an idle driver's moves them and is not kept")
    func keptForDrives() async throws {
        try await RideHarness.with(tracking: FakeTripTracking()) { h in
            let rider = try await h.api.rider()
            let riding = try await h.api.driver("Rita", device: "RIDING")
            for device in ["IDLE", "DRIVING", "ENDED", "ENDING"] { _ = try await h.api.driver("Dana", device: device) }
            try await Self.legs(h, devices: ["DRIVING"])
            try await Self.legs(h, devices: ["ENDED"], ended: 60)
            try await Self.legs(h, devices: ["ENDING"], requested: 60)
            // RIDING accepts an order: from then on its locations are kept, before any leg is recorded.
            try await DispatchTests.position(h, "RIDING", north: 200)
            let order = try await DispatchTests.bookOrder(h, rider.token)
            try await h.eventually("offered") { try await DispatchTests.offers(h, riding.token) == [order] }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/accept", token: riding.token).status == 200)
            let orderID = try #require(UUID(uuidString: order))
            try await h.eventually("the pickup leg recorded") {
                try await DispatchTests.int(h, "SELECT count(*)::int FROM order_legs WHERE order_id = \(orderID)") == 1
            }
            // Without its leg, only the active order says a drive may read RIDING's locations.
            try await h.client.query("DELETE FROM order_legs WHERE order_id = \(orderID)", logger: BackendHarness.logger)
            try await h.client.query("DELETE FROM webhook_events", logger: BackendHarness.logger)

            // A second on: RIDING's first position has the whole second of now, and an equal one is not newer.
            let time = ISO8601DateFormatter().string(from: Date().addingTimeInterval(1))
            let devices = ["IDLE", "RIDING", "DRIVING", "ENDED", "ENDING", "STRANGER"]
            let events = devices.enumerated().map { index, device in
                RideHarness.locationEvent(device: device, lat: 52.53 + Double(index) / 1000, lng: 13.4, at: time)
            }
            let reply = try await h.webhook(events)
            #expect(reply.status == 202)
            #expect(reply.json["detail"] == "6 events received")
            try await h.webhooksApplied()
            let stored = try await h.client.query(
                "SELECT device_id FROM webhook_events WHERE type = 'location' ORDER BY device_id",
                logger: BackendHarness.logger
            )
            var kept: [String] = []
            for try await device in stored.decode(String.self) { kept.append(device) }
            #expect(kept == ["DRIVING", "RIDING", "STRANGER"], "a drive can read them, or the device is unknown")
            // Every known driver moved, kept or not.
            for (index, device) in devices.enumerated() where device != "STRANGER" {
                let rows = try await h.client.query(
                    "SELECT p.lat FROM driver_positions p JOIN users u ON u.id = p.driver_id WHERE u.device_id = \(device)",
                    logger: BackendHarness.logger
                )
                var lat: Double?
                for try await value in rows.decode(Double.self) { lat = value }
                #expect(abs((lat ?? 0) - (52.53 + Double(index) / 1000)) < 1e-9, "\(device)")
            }
            // The same delivery again stores nothing new and moves nobody back.
            let again = try await h.webhook(events)
            #expect(again.json["detail"] == "6 events received")
            try await h.webhooksApplied()
            #expect(try await DispatchTests.int(h, "SELECT count(*)::int FROM webhook_events") == 3)
        }
    }
}
