import Foundation
import HyperTrackAPI
import HyperTrackEmulator
import NIOHTTP1

/// The demo anyone can watch: a rider and a few drivers around a city, a booking, the nearest driver accepting,
/// and the ride played to completion on the emulator's clock, each status change printed with its time.
///
/// It talks to the stack only as the apps and HyperTrack do (the HTTP API and signed webhooks), and to the
/// emulator's control surface to place the phones and move the clock.
public struct LocalDemo: Sendable {
    let running: LocalStack.Running
    let configuration: Configuration
    let say: @Sendable (String) -> Void

    /// Creates the demo.
    /// - Parameters:
    ///   - running: The started stack.
    ///   - configuration: The ride and the clock.
    ///   - say: Receives each line to print.
    public init(running: LocalStack.Running, configuration: Configuration = .init(), say: @escaping @Sendable (String) -> Void) {
        self.running = running
        self.configuration = configuration
        self.say = say
    }

    /// Plays the ride; returns what happened. Throws ``LocalStackError`` when a step does not happen in time.
    public func run() async throws -> Result {
        let api = StackAPI(baseURL: self.running.endpoints.apiURL)
        let emulator = self.running.emulator
        let c = self.configuration
        let started = ContinuousClock.now
        guard let nearest = c.drivers.min(by: { $0.position.distance(to: c.pickup) < $1.position.distance(to: c.pickup) })
        else { throw LocalStackError.invalidPayload("the demo needs at least one driver") }

        let riderToken = try await api.accounts.rider("Ria", phone: "+49 30 1234").accessToken
        self.say("rider Ria signed in")
        var tokens: [String: String] = [:]
        for driver in c.drivers {
            await emulator.registerDevice(
                id: driver.deviceID, name: driver.name, longitude: driver.position.longitude,
                latitude: driver.position.latitude
            )
            let token = try await api.accounts.driver(driver.name, device: driver.deviceID).accessToken
            tokens[driver.deviceID] = token
            let now = ISO8601DateFormatter().string(from: await emulator.now())
            try await api.webhook(
                [Self.location(device: driver.deviceID, at: driver.position, time: now)],
                secret: self.running.endpoints.webhookSecret
            )
            self.say(
                "driver \(driver.name) (\(driver.deviceID)) at \(driver.position.name), "
                    + "\(Int(driver.position.distance(to: c.pickup))) m from the pickup"
            )
        }
        let nearby = "/v1/drivers/nearby?lat=\(c.pickup.latitude)&lng=\(c.pickup.longitude)"
        try await eventually("the drivers on the map", timeout: c.deadline) {
            try await api.expect(200, .GET, nearby, token: riderToken)["drivers"].items.count == c.drivers.count
        }
        let booking: JSONValue = [
            "pickup": ["lat": .number(c.pickup.latitude), "lng": .number(c.pickup.longitude), "address": .string(c.pickup.name)],
            "dropoff": ["lat": .number(c.dropoff.latitude), "lng": .number(c.dropoff.longitude), "address": .string(c.dropoff.name)],
        ]
        let order = try Self.string(
            try await api.expect(201, .POST, "/v1/orders", json: booking, token: riderToken)["id"], "the order id"
        )
        self.say("ride \(order) booked: \(c.pickup.name) → \(c.dropoff.name)")
        let driverToken = tokens[nearest.deviceID]!
        try await eventually("an offer to \(nearest.name)", timeout: c.deadline) {
            try await api.expect(200, .GET, "/v1/offers", token: driverToken)["offers"].items
                .contains { $0["id"] == .string(order) }
        }
        try await api.expect(200, .POST, "/v1/orders/\(order)/accept", token: driverToken)
        self.say("\(nearest.name), the nearest driver, accepted")

        var tracker = StatusTracker(api: api, order: order, token: riderToken, emulator: emulator, say: self.say)
        var shareURLs: [String] = []
        let remaining = { c.deadline - (ContinuousClock.now - started) }
        for (live, reached, action) in [
            ("PICKING_UP", "REACHED_PICKUP", "start"), ("DROPPING_OFF", "REACHED_DROPOFF", "complete"),
        ] {
            let view = try await tracker.drive(until: "\(live)", step: nil, limit: 0, timeout: remaining()) {
                $0["status"] == .string(live)
            }
            if let url = view["live_leg"]["share_url"].stringValue {
                shareURLs.append(url)
                self.say("  share URL: \(url)")
            }
            try await tracker.drive(until: reached, step: c.stepSeconds, limit: c.legLimit, timeout: remaining()) {
                $0["status"] == .string(reached)
            }
            try await api.expect(200, .POST, "/v1/orders/\(order)/\(action)", token: driverToken)
            self.say("\(nearest.name): \(action)")
        }
        let final = try await tracker.drive(until: "the summary", step: c.stepSeconds, limit: c.legLimit, timeout: remaining()) {
            $0["summary"]["pickup"] != .null && $0["summary"]["dropoff"] != .null && $0["summary"]["fare"] != .null
        }
        let summary = final["summary"]
        let fare = Int(summary["fare"]["amount"].doubleValue ?? 0)
        let currency = summary["fare"]["currency"].stringValue ?? ""
        for leg in ["pickup", "dropoff"] {
            let distance = Int(summary[leg]["distance"].doubleValue ?? 0)
            let duration = Int(summary[leg]["duration"].doubleValue ?? 0)
            self.say("\(leg): \(distance) m in \(duration / 60) min \(duration % 60) s")
        }
        self.say(String(format: "fare: %d.%02d %@", fare / 100, fare % 100, currency))
        return Result(
            orderID: order, driverDeviceID: nearest.deviceID, statuses: tracker.seen, shareURLs: shareURLs,
            summary: summary, fare: fare, currency: currency
        )
    }

    static func string(_ value: JSONValue, _ what: String) throws -> String {
        guard let text = value.stringValue else { throw LocalStackError.unexpectedReply("no \(what) in the reply") }
        return text
    }

    /// A `location` webhook event, as HyperTrack sends when a phone reports its position.
    static func location(device: String, at place: Place, time: String) -> JSONValue {
        [
            "created_at": .string(time), "recorded_at": .string(time), "device_id": .string(device), "type": "location",
            "data": [
                "geometry": ["type": "Point", "coordinates": [.number(place.longitude), .number(place.latitude)]],
                "accuracy": 5,
            ],
            "version": "2.0.0",
        ]
    }
}
