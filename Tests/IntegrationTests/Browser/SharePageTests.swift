import AsyncHTTPClient
import Foundation
import Functions
import HyperTrackAPI
import HyperTrackEmulator
import LocalStack
import NIOCore
import NIOHTTP1
import PostgresNIO
import Testing

/// The public share page in a real browser (headless Chromium), during a ride on the emulator's manual clock.
@Suite("Browser: the share page of a ride", .timeLimit(.minutes(10)))
struct SharePageTests {
    /// Screenshots are kept in `test-artifacts/` at the package's root (git-ignored).
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("test-artifacts")

    /// What the test reads from the page's DOM.
    static let probe = """
        JSON.stringify({
          status: document.getElementById('status').getAttribute('data-status'),
          label: document.getElementById('status').textContent,
          driverHidden: document.getElementById('driver').hidden,
          driver: document.getElementById('driver-name').textContent,
          plate: document.getElementById('plate').textContent,
          routes: document.querySelectorAll('#routes polyline').length,
          car: document.getElementById('car-dot').getAttribute('cx'),
          summaryHidden: document.getElementById('summary').hidden,
          fare: document.getElementById('summary-fare').textContent
        })
        """

    static func page(_ browser: HeadlessChromium) async throws -> JSONValue {
        let text = try await browser.evaluate(Self.probe).stringValue ?? "null"
        return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static func waitForPage(
        _ browser: HeadlessChromium,
        _ what: String,
        _ condition: @escaping (JSONValue) -> Bool
    ) async throws -> JSONValue {
        let text = try await browser.waitFor(what, Self.probe) { value in
            guard let text = value.stringValue,
                let page = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            else { return false }
            return condition(page)
        }
        return try JSONDecoder().decode(JSONValue.self, from: Data((text.stringValue ?? "null").utf8))
    }

    @Test("status, driver, map and summary follow the ride live as the emulator's clock advances")
    func liveRide() async throws {
        let browser = try HeadlessChromium.launch()
        defer { browser.close() }
        try await EmulatorRideTests.withEmulatorBackend(Backend.Configuration(webhook: .init(secret: "whsec-share"))) {
            h,
            emulator,
            _ in
            let base = h.api.baseURL ?? ""
            await emulator.registerDevice(id: "DEV-SHARE", name: "phone", longitude: 13.405, latitude: 52.523)
            let rider = try await h.api.rider()
            let driver = try await h.api.driver("Dana Driver", device: "DEV-SHARE")
            try await h.webhook([
                RideHarness.locationEvent(device: "DEV-SHARE", lat: 52.523, lng: 13.405, at: RideHarness.nowText())
            ])
            try await h.eventually("the driver is on the map") {
                try await h.api.send(.GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: rider.token)
                    .json["drivers"].arrayValue.count == 1
            }
            let order = try #require(
                try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token).json["id"]
                    .stringValue
            )
            let shared = try await h.api.send(.POST, "/v1/orders/\(order)/share", token: rider.token)
            #expect(shared.status == 201)
            #expect(shared.json["expires_at"] == .null, "the link expires only after the ride")
            let path = try #require(shared.json["url"].stringValue)
            #expect(path.hasPrefix("/share/sh_"))

            try await browser.open(base + path)
            var page = try await Self.waitForPage(browser, "the booked ride") { $0["status"] == "NEW" }
            #expect(page["driverHidden"] == true)
            #expect(page["label"] == "Looking for a driver")

            try await h.eventually("offered") {
                try await h.api.send(.GET, "/v1/offers", token: driver.token).json["offers"].arrayValue.count == 1
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/accept", token: driver.token).status == 200)
            page = try await Self.waitForPage(browser, "the driver on the way") { $0["status"] == "PICKING_UP" }
            #expect(page["driverHidden"] == false)
            #expect(page["driver"] == "Dana", "only the first name")
            #expect(page["plate"] == "B-RS 42")
            #expect(page["routes"] == 1, "the pickup leg's route")

            try await EmulatorRideTests.drive(h, emulator, until: "REACHED_PICKUP") {
                try await Self.page(browser)["status"] == "REACHED_PICKUP"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/start", token: driver.token).status == 200)
            page = try await Self.waitForPage(browser, "the ride under way") { $0["status"] == "DROPPING_OFF" }
            #expect(page["routes"] == 2)
            // The driver's live position moves on the map as the clock advances. Positions reach the page at most
            // once a second (real time) per order, so the clock moves in steps until one gets through.
            let before = page["car"]
            try await EmulatorRideTests.drive(h, emulator, until: "the car moving on the map", limit: 240) {
                let car = try await Self.page(browser)["car"]
                return (car.stringValue.flatMap(Double.init) ?? -100) >= 0 && car != before
            }
            try await browser.screenshot(to: Self.artifacts.appendingPathComponent("share-page-ride.png"))

            try await EmulatorRideTests.drive(h, emulator, until: "REACHED_DROPOFF") {
                try await Self.page(browser)["status"] == "REACHED_DROPOFF"
            }
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/complete", token: driver.token).status == 200)
            try await EmulatorRideTests.drive(h, emulator, until: "the summary on the page") {
                try await Self.page(browser)["summaryHidden"] == false
            }
            page = try await Self.page(browser)
            #expect(page["status"] == "COMPLETED")
            #expect(page["fare"].stringValue?.hasSuffix("EUR") == true)
            try await browser.screenshot(to: Self.artifacts.appendingPathComponent("share-page-completed.png"))

            // The page's stream shows only what the page shows; revoking the link ends it (and the page says so).
            let stream = try await SSEClient.connect(base + path + "/events")
            let snapshot = try await stream.waitForEvent("the snapshot") { $0.name == "share.order" }
            #expect(snapshot.json["status"] == "COMPLETED")
            #expect(snapshot.json["driver"] == ["first_name": "Dana", "car": ["model": "Prius", "plate": "B-RS 42"]])
            for secret in ["rider_id", "phone", "trip_id", "share_url", rider.id, driver.id] {
                #expect(!snapshot.data.contains(secret), "the share stream leaks \(secret)")
            }
            #expect(try await h.api.send(.DELETE, "/v1/orders/\(order)/share", token: rider.token).status == 204)
            try await stream.waitForEnd(timeout: .seconds(30))
            #expect(stream.events.last?.name == "stream.closed")
            #expect(stream.events.last?.json["reason"] == "revoked")
            try await browser.waitFor(
                "the page to say the link is gone",
                "document.getElementById('connection').textContent"
            ) {
                $0 == "This link is no longer available"
            }
        }
    }
}
