import AsyncHTTPClient
import BackendServer
import EmbeddedPostgres
import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import HyperTrackEmulator
import LocalStack
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import Testing
import TriggerRuntime

/// The functions shell: every example payload, bad input, and a real call against a running local stack.
@Suite("LocalStack: the functions shell", .timeLimit(.minutes(10)))
struct FunctionsShellTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("local-emulator/examples")

    /// Parsing a payload needs a registered function, never a call to HyperTrack.
    static let registry = Backend().registry(tracking: FakeTripTracking())

    @Test("every example payload parses for its function, and every function has an example")
    func examplesParse() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path).filter { $0.hasSuffix(".json") }
        var covered: Set<String> = []
        for file in files.sorted() {
            let name = String(file.dropLast(5).split(separator: "-")[0])
            let function = try #require(Self.registry.function(named: FunctionName(name)), "\(file) names no function")
            let data = try Data(contentsOf: Self.examples.appendingPathComponent(file))
            let operation: ChangeOperation? = name == "registerDriverDevice" ? .create : nil
            let invocation = try FunctionsShell.parse(data, for: function, operation: operation)
            #expect(function.trigger?.operations.contains(invocation.operation) == true, "\(file)")
            #expect(!invocation.documentKey.isEmpty)
            // The rows decode as the function's row type: invoking with a context that has no transaction fails
            // on the store, not on decoding.
            covered.insert(name)
        }
        // Every row function; timer functions are fired by their timers, not by the shell.
        #expect(covered == Set(Self.registry.functions.filter { $0.trigger != nil }.map(\.name.description)))
        for file in ["updateOrderStatus-accept", "updateOrderStatus-start-ride", "updateOrderStatus-end-ride",
                     "updateOrderStatus-cancel", "deleteOrder"] {
            #expect(files.contains(file + ".json"), "\(file) is missing")
        }
    }

    @Test("bad payloads get a clear error")
    func badPayloads() throws {
        let update = try #require(Self.registry.function(named: "updateOrderStatus"))
        let delete = try #require(Self.registry.function(named: "deleteOrder"))
        let cases: [(RegisteredFunction, String, String)] = [
            (update, "[1]", "must be a JSON object"),
            (update, "not json", "not JSON"),
            (update, #"{"id": "x", "status": "NEW"}"#, "give {\"before\""),
            (update, #"{"after": {"id": "x"}}"#, "but the payload is a create"),
            (delete, #"{"before": null, "after": null}"#, "neither"),
            (delete, #"{"status": "NEW"}"#, "has no \"id\""),
        ]
        for (function, payload, message) in cases {
            let error = #expect(throws: LocalStackError.self) {
                try FunctionsShell.parse(Data(payload.utf8), for: function)
            }
            #expect(error?.isBadInput == true)
            #expect(error?.message.contains(message) == true, "\(payload): \(error?.message ?? "")")
        }
    }

    @Test("every example payload runs on a fresh stack: logs and an outcome, and a failure changes nothing")
    func examplesRun() async throws {
        let logger = LocalStackTests.logger
        try await TestDatabase.shared.withDatabase(logger: logger) { client, database in
            try await LocalStackTests.withStack(
                database: database, configuration: LocalStackTests.configuration(), logger: logger
            ) { running in
                let hyperTrack = try HyperTrackClient(
                    configuration: .init(
                        baseURL: running.endpoints.emulatorURL, accountID: running.endpoints.accountID,
                        secretKey: running.endpoints.secretKey
                    ),
                    httpClient: .shared, logger: logger
                )
                let registry = Backend().registry(tracking: HyperTrackTripTracking(client: hyperTrack, logger: logger))
                let files = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path)
                    .filter { $0.hasSuffix(".json") }.sorted()
                for file in files {
                    let name = String(file.dropLast(5).split(separator: "-")[0])
                    let function = try #require(registry.function(named: FunctionName(name)))
                    let data = try Data(contentsOf: Self.examples.appendingPathComponent(file))
                    let operation: ChangeOperation? = name == "registerDriverDevice" ? .create : nil
                    let invocation = try FunctionsShell.parse(data, for: function, operation: operation)
                    let before = try await Self.deliveryCount(client, logger)
                    let outcome = try await FunctionsShell.call(function, with: invocation, client: client, logger: logger)
                    #expect(outcome.report.hasPrefix("\(name) (\(invocation.operation.rawValue) of "), "\(file)")
                    if outcome.succeeded {
                        #expect(outcome.report.contains("outcome: succeeded"), "\(file)")
                    } else {
                        // The example's rows are not in this database: a clear error, and nothing was written.
                        #expect(outcome.error?.isEmpty == false, "\(file)")
                        #expect(outcome.captured.isEmpty, "\(file)")
                        #expect(try await Self.deliveryCount(client, logger) == before, "\(file) changed the outbox")
                        #expect(outcome.report.contains("outcome: FAILED"), "\(file)")
                    }
                }
                // registerDriverDevice names the device on HyperTrack: a real effect on the emulator.
                var request = HTTPClientRequest(url: "\(running.endpoints.emulatorURL)/devices/demo-dana")
                let credentials = Data("\(running.endpoints.accountID):\(running.endpoints.secretKey)".utf8)
                    .base64EncodedString()
                request.headers.add(name: "Authorization", value: "Basic \(credentials)")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
                #expect(response.status == .ok)
                #expect(body.contains("Dana"), "\(body)")
            }
        }
    }

    /// The Firebase sample's `testData.json` style: nested rider/driver, `{latitude, longitude}` places, a
    /// `trip_id` on the order and the status `"any"`.
    static let firebasePayload = #"""
        {"before": {"id": "6f1c2a9e-0b7d-4a55-9d1e-3c8f2b7a4e10", "status": "NEW",
                    "rider": {"name": "Ria", "phone": "+49 30 1"},
                    "pickup": {"latitude": 52.52, "longitude": 13.405}, "dropoff": {"latitude": 52.5, "longitude": 13.3}},
         "after": {"id": "6f1c2a9e-0b7d-4a55-9d1e-3c8f2b7a4e10", "status": "any", "trip_id": "t-1",
                   "driver": {"device_id": "D1", "name": "Dana"},
                   "pickup": {"latitude": 52.52, "longitude": 13.405}, "dropoff": {"latitude": 52.5, "longitude": 13.3}}}
        """#

    @Test("a Firebase-style payload is refused with every change it needs at once, naming before and after; an update of an order that does not exist fails")
    func firebasePayloads() async throws {
        let logger = LocalStackTests.logger
        try await TestDatabase.shared.withDatabase(logger: logger) { client, database in
            try await LocalStackTests.withStack(
                database: database, configuration: LocalStackTests.configuration(), logger: logger
            ) { _ in
                let function = try #require(Self.registry.function(named: "updateOrderStatus"))
                let invocation = try FunctionsShell.parse(Data(Self.firebasePayload.utf8), for: function)
                let before = try await Self.deliveryCount(client, logger)
                let outcome = try await FunctionsShell.call(function, with: invocation, client: client, logger: logger)
                #expect(!outcome.succeeded)
                let error = outcome.error ?? ""
                for expected in [
                    "before.pickup: not a column of orders: write a place as pickup_lat, pickup_lng",
                    "before.rider: not a column of orders: use rider_id",
                    "before.rider_id: is required", "before.pickup_lat: is required",
                    "after.driver: not a column of orders: use driver_id, the driver's users.id (`SELECT id FROM users WHERE device_id = 'D1'`)",
                    "after.trip_id: orders have no trip_id",
                    "after.dropoff: not a column", "after.status: \"any\" is not an order status",
                ] {
                    #expect(error.contains(expected), "missing \(expected) in \(error)")
                }
                #expect(error.contains("problems):"))
                #expect(try await Self.deliveryCount(client, logger) == before)

                // A well-formed update of an order that is not in the database: says so, changes nothing.
                let example = try Data(contentsOf: Self.examples.appendingPathComponent("updateOrderStatus-accept.json"))
                let missing = try await FunctionsShell.call(
                    function, with: try FunctionsShell.parse(example, for: function), client: client, logger: logger
                )
                #expect(!missing.succeeded)
                #expect(missing.error?.contains("has no row with id = 6f1c2a9e-0b7d-4a55-9d1e-3c8f2b7a4e10") == true, "\(missing.report)")
                #expect(missing.logs.isEmpty, "the function did not run")
            }
        }
    }

    static func deliveryCount(_ client: PostgresClient, _ logger: Logger) async throws -> Int {
        let rows = try await client.query(
            // Schedule ticks are left out: the live stack's schedules tick every minute whatever the shell does.
            """
            SELECT (SELECT count(*) FROM trigger_runtime.deliveries WHERE operation <> 'tick')
                 + (SELECT count(*) FROM trigger_runtime.done WHERE operation <> 'tick')
            """,
            logger: logger
        )
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    @Test("deleteOrder on a live ride: logs, commits, captures the leg's completion, and the worker completes the trip")
    func liveCall() async throws {
        let logger = LocalStackTests.logger
        try await TestDatabase.shared.withDatabase(logger: logger) { client, database in
            try await LocalStackTests.withStack(
                database: database, configuration: LocalStackTests.configuration(), logger: logger
            ) { running in
                let api = StackAPI(baseURL: running.endpoints.apiURL)
                await running.emulator.registerDevice(id: "shell-dev", longitude: 13.405, latitude: 52.523)
                let riderToken = try await api.accounts.rider("Ria").accessToken
                let driverToken = try await api.accounts.driver("Dana", device: "shell-dev").accessToken
                let now = JSONValue.string(ISO8601DateFormatter().string(from: Date()))
                try await api.webhook(
                    [[
                        "created_at": now, "recorded_at": now,
                        "device_id": "shell-dev", "type": "location", "version": "2.0.0",
                        "data": ["geometry": ["type": "Point", "coordinates": [13.405, 52.523]], "accuracy": 5],
                    ]],
                    secret: running.endpoints.webhookSecret
                )
                let booking: JSONValue = [
                    "pickup": ["lat": 52.52, "lng": 13.405], "dropoff": ["lat": 52.5163, "lng": 13.3777],
                ]
                var order: String?
                try await RideHarness.poll("the driver on the map, then the booking offered") {
                    if order == nil {
                        let nearby = try await api.expect(200, .GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: riderToken)
                        guard nearby.objectValue?["drivers"] != .array([]) else { return false }
                        order = try await api.expect(201, .POST, "/v1/orders", json: booking, token: riderToken)
                            .objectValue?["id"]?.stringValue
                    }
                    let offers = try await api.expect(200, .GET, "/v1/offers", token: driverToken)
                    return offers.objectValue?["offers"] != .array([])
                }
                let id = try #require(order)
                try await api.expect(200, .POST, "/v1/orders/\(id)/accept", token: driverToken)
                try await RideHarness.poll("PICKING_UP") {
                    try await api.expect(200, .GET, "/v1/orders/\(id)", token: riderToken).objectValue?["status"] == "PICKING_UP"
                }
                let rows = try await client.query("SELECT to_jsonb(o)::text FROM orders o WHERE id = \(UUID(uuidString: id)!)", logger: logger)
                var document = ""
                for try await text in rows.decode(String.self) { document = text }

                let hyperTrack = try HyperTrackClient(
                    configuration: .init(
                        baseURL: running.endpoints.emulatorURL, accountID: running.endpoints.accountID,
                        secretKey: running.endpoints.secretKey
                    ),
                    httpClient: .shared, logger: logger
                )
                let tracking = HyperTrackTripTracking(client: hyperTrack, logger: logger)
                let function = try #require(Backend().registry(tracking: tracking).function(named: "deleteOrder"))
                let invocation = try FunctionsShell.parse(Data(document.utf8), for: function)
                #expect(invocation.operation == .delete)
                let outcome = try await FunctionsShell.call(function, with: invocation, client: client, logger: logger)
                #expect(outcome.succeeded, "\(outcome.report)")
                #expect(outcome.logs.contains { $0.contains("order deleted") && $0.contains("legs=1") }, "\(outcome.logs)")
                // The leg's move to `completing` is captured for completeTrip, which completes the trip; not for
                // analyzeTrip, whose trigger's filter waits for `completed`.
                #expect(outcome.captured.count == 1)
                #expect(outcome.captured.allSatisfy { $0.table.hasSuffix("order_legs") })
                #expect(outcome.captured.map(\.function) == ["completeTrip"])
                #expect(outcome.report.contains("completeTrip"))
                // The committed change reaches the worker, which completes the pickup trip on HyperTrack.
                try await RideHarness.poll("the pickup trip completing") {
                    let trips = try await LocalStackTests.trips(running, device: "shell-dev")
                    return trips.count == 1 && trips[0].objectValue?["status"] != "active"
                }
            }
        }
    }
}

extension RideHarness {
    /// Polls `condition` with a generous deadline (state the worker writes; there is no event to await).
    static func poll(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw RideHarness.TimedOut(what: what)
    }
}
