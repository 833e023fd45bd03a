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
import Testing
import TriggerRuntime

/// A whole ride against the HyperTrack emulator: the real client calls it over HTTP, its simulated device drives
/// to each destination on a stepped clock, and its signed webhooks come back to our endpoint.
@Suite("Functions: a whole ride against the HyperTrack emulator", .timeLimit(.minutes(10)))
struct EmulatorRideTests {
    static let secret = "whsec-emulator"

    @Test(
        "register, book, offer, accept, drive, arrive, start, drive, arrive, complete, summary and fare",
        arguments: Backend.Configuration.Webhook.Apply.allCases
    )
    func ride(apply: Backend.Configuration.Webhook.Apply) async throws {
        try await Self.withEmulatorBackend(Backend.Configuration(webhook: .init(secret: Self.secret, apply: apply))) {
            harness,
            emulator,
            tracking in
            try await Self.play(harness, emulator: emulator, tracking: tracking)
        }
    }

    @Test("dispatch through HyperTrack's Nearby API offers the registered, available drivers nearest first")
    func nearbyDispatch() async throws {
        var configuration = Backend.Configuration(webhook: .init(secret: Self.secret))
        configuration.dispatch = .init(radius: 2000, offerCount: 5, useNearbyAPI: true, nearbyTimeout: .seconds(2))
        try await Self.withEmulatorBackend(configuration) { h, emulator, _ in
            await emulator.registerDevice(id: "NEAR", longitude: 13.405, latitude: 52.521)
            await emulator.registerDevice(id: "FARTHER", longitude: 13.405, latitude: 52.530)
            await emulator.registerDevice(id: "OUTSIDE", longitude: 13.405, latitude: 52.60)
            await emulator.registerDevice(id: "STRANGER", longitude: 13.405, latitude: 52.5201)
            let rider = try await h.api.rider()
            let farther = try await h.api.driver("Fay", device: "FARTHER")
            let near = try await h.api.driver("Nia", device: "NEAR")
            let outside = try await h.api.driver("Oli", device: "OUTSIDE")
            let booked = try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token)
            let order = try #require(booked.json["id"].stringValue)
            try await h.eventually("offers recorded") {
                try await h.api.send(.GET, "/v1/offers", token: farther.token).json["offers"].arrayValue.count == 1
            }
            #expect(
                try await h.api.send(.GET, "/v1/offers", token: near.token).json["offers"][0]["id"] == .string(order)
            )
            #expect(try await h.api.send(.GET, "/v1/offers", token: outside.token).json["offers"].arrayValue.isEmpty)
            let ranks = try await h.client.query(
                "SELECT u.device_id FROM order_offers f JOIN users u ON u.id = f.driver_id ORDER BY f.rank",
                logger: BackendHarness.logger
            )
            var devices: [String] = []
            for try await device in ranks.decode(String.self) { devices.append(device) }
            #expect(devices == ["NEAR", "FARTHER"])
        }
    }

    /// The local stack's wiring (API, then the emulator posting webhooks to it, then the worker with a
    /// `HyperTrackClient` on the emulator) on a fresh database with a manual clock.
    static func withEmulatorBackend(
        _ configuration: Backend.Configuration,
        driverSpeed: Double = 10,
        tickInterval: Double = 5,
        _ body: @escaping @Sendable (RideHarness, HyperTrackEmulator, HyperTrackClient) async throws -> Void
    ) async throws {
        let logger = BackendHarness.logger
        try await TestDatabase.shared.withDatabase(logger: logger) { client, database in
            var stack = LocalStack.Configuration()
            stack.apiPort = 0
            stack.emulatorPort = 0
            stack.clock = .manual()
            stack.driverSpeed = driverSpeed
            stack.emulatorTickInterval = tickInterval
            stack.backend = configuration
            stack.webhookSecret = configuration.webhook.secret ?? ""
            stack.runtime.pollInterval = .milliseconds(200)
            stack.runtime.shutdownGracePeriod = .seconds(2)
            try await LocalStackTests.withStack(database: database, configuration: stack, logger: logger) { running in
                var clientConfiguration = HyperTrackClient.Configuration(
                    baseURL: running.endpoints.emulatorURL,
                    accountID: running.endpoints.accountID,
                    secretKey: running.endpoints.secretKey
                )
                clientConfiguration.nearbyPollInterval = .milliseconds(200)
                let tracking = try HyperTrackClient(configuration: clientConfiguration, httpClient: .shared, logger: logger)
                let harness = RideHarness(
                    client: client,
                    api: APIClient(stack: running.endpoints.apiURL),
                    secret: running.endpoints.webhookSecret,
                    webhookPath: "/v1/hypertrack/webhooks/\(running.endpoints.webhookSecret)"
                )
                try await body(harness, running.emulator, tracking)
            }
        }
    }

    /// Advances the emulator's clock a step at a time until `condition` holds (at most `limit` emulated seconds).
    static func drive(
        _ h: RideHarness,
        _ emulator: HyperTrackEmulator,
        until what: String,
        limit: Double = 3600,
        _ condition: @escaping @Sendable () async throws -> Bool
    ) async throws {
        var elapsed = 0.0
        while elapsed < limit {
            if try await condition() { return }
            await emulator.advanceClock(by: 30)
            elapsed += 30
            // The webhooks of this step were delivered; give the worker a moment to apply them.
            if (try? await h.eventually(what, timeout: .milliseconds(500), condition)) != nil { return }
        }
        throw RideHarness.TimedOut(what: "\(what) within \(Int(limit)) emulated seconds")
    }

    static func play(_ h: RideHarness, emulator: HyperTrackEmulator, tracking: HyperTrackClient) async throws {
        // The driver's phone is ~330 m north of the pickup.
        await emulator.registerDevice(id: "DEV-EMU", name: "phone", longitude: 13.405, latitude: 52.523)
        let rider = try await h.api.rider()
        let driver = try await h.api.driver(device: "DEV-EMU")
        try await h.webhook([
            RideHarness.locationEvent(device: "DEV-EMU", lat: 52.523, lng: 13.405, at: RideHarness.nowText())
        ])
        try await h.eventually("the driver is on the map") {
            try await h.api.send(.GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: rider.token)
                .json["drivers"].arrayValue.count == 1
        }
        let order = try #require(
            try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token).json["id"].stringValue
        )
        try await h.eventually("offered") {
            try await h.api.send(.GET, "/v1/offers", token: driver.token).json["offers"].arrayValue.count == 1
        }
        #expect(try await h.api.send(.POST, "/v1/orders/\(order)/accept", token: driver.token).status == 200)
        try await h.eventually("PICKING_UP") { try await h.order(order, token: rider.token)["status"] == "PICKING_UP" }
        let pickupLeg = try await h.order(order, token: rider.token)["live_leg"]
        #expect(pickupLeg["share_url"].stringValue?.isEmpty == false)
        let pickupTrip = try #require(pickupLeg["trip_id"].stringValue)
        #expect(try await tracking.trip(id: pickupTrip).metadata?["leg"] == "pickup")
        #expect(try await tracking.trip(id: pickupTrip).destination?.radius == 100)

        try await Self.drive(h, emulator, until: "REACHED_PICKUP") {
            try await h.order(order, token: rider.token)["status"] == "REACHED_PICKUP"
        }
        #expect(try await h.api.send(.POST, "/v1/orders/\(order)/start", token: driver.token).status == 200)
        try await h.eventually("DROPPING_OFF") {
            try await h.order(order, token: rider.token)["status"] == "DROPPING_OFF"
        }
        try await Self.drive(h, emulator, until: "REACHED_DROPOFF") {
            try await h.order(order, token: rider.token)["status"] == "REACHED_DROPOFF"
        }
        let completed = try await h.api.send(.POST, "/v1/orders/\(order)/complete", token: driver.token)
        #expect(completed.json["status"] == "COMPLETED")
        try await Self.drive(h, emulator, until: "the order's summary with both legs") {
            try await h.order(order, token: rider.token)["summary"]["pickup"] != .null
        }
        let view = try await h.order(order, token: rider.token)
        let summary = view["summary"]
        let distance = try #require(summary["dropoff"]["distance"].doubleValue)
        let duration = try #require(summary["dropoff"]["duration"].doubleValue)
        #expect(distance > 1000, "Alexanderplatz to the Brandenburger Tor is ~1.9 km")
        #expect(summary["fare"]["amount"].doubleValue == Double(Tariff().fare(distance: distance, duration: duration)))
        #expect(view["legs"].arrayValue.allSatisfy { $0["status"] == "completed" })
        // Both trips were completed on HyperTrack, and read back with their summaries.
        let pickup = try await tracking.trip(id: pickupTrip)
        #expect(pickup.status == .completed)
        #expect(pickup.summary?.distance == summary["pickup"]["distance"].doubleValue)
        let adapter = HyperTrackTripTracking(client: tracking, logger: BackendHarness.logger)
        #expect(try await adapter.activeTrips(deviceID: "DEV-EMU").isEmpty)
        // Both drives became the driver's trips, built from the locations the emulator's device reported.
        try await h.eventually("both drives are trips") {
            try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver.token).json["trips"].arrayValue.count == 2
        }
        let trips = try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver.token).json["trips"].arrayValue
        #expect(trips.map { $0["drive_type"] } == ["dropoff", "pickup"])
        #expect(trips[0]["score"].doubleValue != nil, "a driven leg is rated")
        let tripID = try #require(trips[0]["id"].stringValue)
        let detail = try await h.api.send(.GET, "/v1/drivers/me/trips/\(tripID)", token: driver.token).json
        #expect((detail["info"]["point_count"].doubleValue ?? 0) > 2, "\(detail["info"])")
        #expect(detail["path"].arrayValue.count >= 2)
    }
}
