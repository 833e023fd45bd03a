import AsyncHTTPClient
import EmbeddedPostgres
import Foundation
import Functions
import HyperTrackAPI
import HyperTrackEmulator
import LocalStack
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import ServiceLifecycle
import Synchronization
import Testing
import TriggerRuntime

/// The local stack in-process: the demo ride through real HTTP, fault injection, state surviving a restart.
@Suite("LocalStack: the one-command stack and the demo", .timeLimit(.minutes(10)))
struct LocalStackTests {
    static let logger: Logger = {
        var logger = Logger(label: "local-stack-tests")
        logger.logLevel = .warning
        return logger
    }()

    static func configuration(stateDirectory: String? = nil) -> LocalStack.Configuration {
        var configuration = LocalStack.Configuration()
        configuration.apiPort = 0
        configuration.emulatorPort = 0
        configuration.clock = .manual()
        configuration.runtime.pollInterval = .milliseconds(200)
        configuration.emulatorStateDirectory = stateDirectory
        return configuration
    }

    /// Runs a stack (and its own database client) on `database` while `body` runs, then shuts both down gracefully.
    static func withStack<T: Sendable>(
        database: PostgresClient.Configuration,
        configuration: LocalStack.Configuration,
        logger: Logger,
        _ body: @Sendable (LocalStack.Running) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: database, backgroundLogger: logger)
        return try await ServiceGroup.withRunning(logger: logger, notReady: LocalStackError.stoppedBeforeReady) {
            ready in
            [client, LocalStack(client: client, configuration: configuration, logger: logger) { ready($0) }]
        } _: { running in
            try await body(running)
        }
    }

    /// The emulator's trips of `device` (all statuses), through HyperTrack's own API.
    static func trips(_ running: LocalStack.Running, device: String) async throws -> [JSONValue] {
        var request = HTTPClientRequest(url: "\(running.endpoints.emulatorURL)/trips?status=all&device_id=\(device)")
        let credentials = Data("\(running.endpoints.accountID):\(running.endpoints.secretKey)".utf8).base64EncodedString()
        request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 8 << 20)
        #expect(response.status == .ok)
        guard case .object(let page) = try JSONDecoder().decode(JSONValue.self, from: body),
            case .array(let trips) = page["data"] ?? .null
        else { return [] }
        return trips
    }

    static func checkRide(_ result: LocalDemo.Result, _ running: LocalStack.Running) async throws {
        let statuses = result.statuses.map(\.status)
        let expected = ["PICKING_UP", "REACHED_PICKUP", "DROPPING_OFF", "REACHED_DROPOFF", "COMPLETED"]
        #expect(expected.allSatisfy(statuses.contains), "\(statuses)")
        #expect(expected.compactMap { statuses.firstIndex(of: $0) } == expected.compactMap { statuses.firstIndex(of: $0) }.sorted())
        #expect(result.driverDeviceID == "demo-dana", "Dana is the nearest driver")
        #expect(result.shareURLs.count == 2)
        #expect(result.shareURLs.allSatisfy { $0.hasPrefix("https://trck.at/") })
        let dropoff = try #require(result.summary.objectValue?["dropoff"]?.objectValue)
        let distance = try #require(dropoff["distance"]?.doubleValue)
        let duration = try #require(dropoff["duration"]?.doubleValue)
        #expect(distance > 1000)
        #expect(result.fare == Tariff().fare(distance: distance, duration: duration))
        #expect(result.currency == "EUR")
        // Exactly one HyperTrack trip per leg, both completed.
        let trips = try await Self.trips(running, device: "demo-dana")
        #expect(trips.count == 2, "one trip per leg, got \(trips.count)")
        #expect(trips.allSatisfy { $0.objectValue?["status"] == "completed" })
        let legs = Set(trips.compactMap { $0.objectValue?["metadata"]?.objectValue?["leg"]?.stringValue })
        #expect(legs == ["pickup", "dropoff"])
    }

    @Test("the banner's next steps work as printed: its OpenAPI URL answers, its curl moves the manual clock 60 s")
    func bannerNextSteps() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { _, database in
            try await Self.withStack(database: database, configuration: Self.configuration(), logger: Self.logger) {
                running in
                let banner = running.endpoints.banner
                let openAPI = try #require(
                    banner.firstMatch(of: /http:\/\/\S+\/openapi\.json/).map { String($0.output) }
                )
                let document = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: openAPI),
                    timeout: .seconds(30)
                )
                #expect(document.status == .ok, "\(openAPI)")
                // The curl line, taken apart: its URL, its header, its body.
                let curl = try #require(banner.firstMatch(of: /curl -X POST (\S+) -H '([^:]+): ([^']+)' -d '([^']+)'/))
                var request = HTTPClientRequest(url: String(curl.1))
                request.method = .POST
                request.headers.add(name: String(curl.2), value: String(curl.3))
                request.body = .bytes(ByteBuffer(string: String(curl.4)))
                let before = await running.emulator.now()
                let reply = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                #expect(reply.status == .ok)
                #expect(await running.emulator.now().timeIntervalSince(before) == 60)
            }
        }
    }

    @Test("the demo: drivers around Berlin, a booking, the nearest accepts, the ride to its summary and fare")
    func demo() async throws {
        let lines = LineCollector()
        var configuration = Self.configuration()
        configuration.onShareLink = { order, url in lines.append("share page of ride \(order): \(url)") }
        let stack = configuration
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { _, database in
            try await LocalStackTests.withStack(database: database, configuration: stack, logger: Self.logger) {
                running in
                let result = try await LocalDemo(running: running) { lines.append($0) }.run()
                try await Self.checkRide(result, running)
                let printed = lines.all.joined(separator: "\n")
                #expect(printed.contains("share URL: https://trck.at/"))
                #expect(printed.contains("] COMPLETED"))
                #expect(printed.contains("fare: "))
                // The stack announced the ride's own share page, and it serves the page.
                let prefix = "share page of ride \(result.orderID.uppercased()): \(running.endpoints.apiURL)/share/"
                let announced = try #require(lines.all.first { $0.uppercased().hasPrefix(prefix.uppercased()) }, "\(lines.all)")
                let url = String(announced.dropFirst("share page of ride \(result.orderID): ".count))
                let page = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                #expect(page.status == .ok)
                #expect(page.headers.first(name: "content-security-policy")?.contains("default-src 'self'") == true)
            }
        }
    }

    @Test("faults: 503s, 429s, webhooks duplicated, reordered and replayed under new ids; one trip per leg, one move per arrival")
    func faults() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, database in
            try await LocalStackTests.withStack(database: database, configuration: Self.configuration(), logger: Self.logger) {
                running in
                let emulator = running.emulator
                try await emulator.addFault(.httpError(status: 503, method: "POST", path: "/trips", count: 2))
                try await emulator.addFault(.rateLimit(retryAfter: 1, method: "POST", path: "/trips/*/complete", count: 2))
                try await emulator.addFault(.httpError(status: 503, method: "POST", path: "/trips/*/complete", count: 1))
                try await emulator.addFault(.duplicateWebhooks(eventType: "trip"))
                try await emulator.addFault(.reorderWebhooks(eventType: "location", rate: 0.5))
                try await emulator.addFault(.replayWebhooks(eventType: "trip"))
                let result = try await LocalDemo(running: running) { _ in }.run()
                try await Self.checkRide(result, running)
                let deliveries = await emulator.webhookDeliveries()
                let tripDeliveries = deliveries.filter { $0.eventTypes.contains("trip") }
                #expect(Set(tripDeliveries.map(\.messageID)).count < tripDeliveries.count, "trip webhooks were duplicated")
                // Every arrival came several times, under several message ids; each moved the order once.
                var moves: [String] = []
                let rows = try await client.query(
                    "SELECT outcome FROM webhook_events WHERE outcome LIKE 'applied: % -> REACHED_%' ORDER BY id",
                    logger: Self.logger
                )
                for try await outcome in rows.decode(String.self) { moves.append(outcome) }
                #expect(
                    moves == ["applied: PICKING_UP -> REACHED_PICKUP", "applied: DROPPING_OFF -> REACHED_DROPOFF"], "\(moves)"
                )
            }
        }
    }

    @Test("the emulator's state is saved on shutdown and loaded at the next start")
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("local-stack-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { _, database in
            let configuration = Self.configuration(stateDirectory: directory)
            try await LocalStackTests.withStack(database: database, configuration: configuration, logger: Self.logger) {
                running in
                await running.emulator.registerDevice(id: "kept", name: "Kept", longitude: 13.4, latitude: 52.5)
            }
            #expect(FileManager.default.fileExists(atPath: directory + "/state.json"))
            try await LocalStackTests.withStack(database: database, configuration: configuration, logger: Self.logger) {
                running in
                let state = try JSONDecoder().decode(
                    JSONValue.self, from: try await Self.get("\(running.endpoints.emulatorURL)/_emulator/state")
                )
                #expect("\(state)".contains("kept"))
            }
        }
    }

    static func get(_ url: String) async throws -> Data {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        #expect(response.status == .ok)
        return Data(try await response.body.collect(upTo: 16 << 20).readableBytesView)
    }
}

/// Lines a demo printed.
final class LineCollector: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { self.lines.withLock { $0.append(line) } }
    var all: [String] { self.lines.withLock { $0 } }
}
