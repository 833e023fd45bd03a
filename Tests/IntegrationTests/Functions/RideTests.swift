import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

@Suite("Functions: whole rides through the API, the runtime, the tracking API and webhooks", .timeLimit(.minutes(10)))
struct RideTests {
    static let book: JSONValue = [
        "pickup": ["lat": 52.52, "lng": 13.405, "address": "Alexanderplatz"],
        "dropoff": ["lat": 52.5163, "lng": 13.3777, "address": "Brandenburger Tor"],
    ]

    /// Rider and driver registered, driver positioned next to the pickup, order booked and offered, accepted, and
    /// the pickup trip created. Returns the rider's and driver's tokens and the order id.
    static func acceptedRide(
        _ h: RideHarness,
        _ tracking: FakeTripTracking,
        rider registered: (id: String, token: String)? = nil
    ) async throws -> (rider: String, driver: String, order: String) {
        let rider = if let registered { registered } else { try await h.api.rider() }
        let driver = try await h.api.driver(device: "DEV-1")
        try await h.eventually("the driver's device is named") { tracking.device("DEV-1")?.name == "Dana" }
        #expect(tracking.device("DEV-1")?.metadata?["car"] == ["model": "Prius", "plate": "B-RS 42"])

        let position = RideHarness.locationEvent(device: "DEV-1", lat: 52.521, lng: 13.405, at: RideHarness.nowText())
        #expect(try await h.webhook([position]).status == 202)
        try await h.eventually("the driver appears on the map") {
            try await h.api.send(.GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: rider.token)
                .json["drivers"].arrayValue.count == 1
        }

        let booked = try await h.api.send(.POST, "/v1/orders", json: Self.book, token: rider.token)
        #expect(booked.status == 201)
        let order = try #require(booked.json["id"].stringValue)
        try await h.eventually("the order is offered to the driver") {
            try await h.api.send(.GET, "/v1/offers", token: driver.token).json["offers"].arrayValue
                .contains { $0["id"].stringValue == order }
        }
        let accepted = try await h.api.send(.POST, "/v1/orders/\(order)/accept", token: driver.token)
        #expect(accepted.status == 200)
        try await h.eventually("PICKING_UP") { try await h.order(order, token: rider.token)["status"] == "PICKING_UP" }
        return (rider.token, driver.token, order)
    }

    @Test("register, book, offer, accept, arrival, start, arrival, complete, summary and fare")
    func fullRide() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking) { h in
            let (rider, driver, order) = try await Self.acceptedRide(h, tracking)
            let pickupTrip = try #require(tracking.trips.first)
            #expect(pickupTrip.metadata?["order_id"]?.stringValue == order.lowercased())
            #expect(pickupTrip.metadata?["leg"] == "pickup")
            #expect(pickupTrip.destination?.radius == 100)
            let view = try await h.order(order, token: rider)
            #expect(view["driver"]["car"]["plate"] == "B-RS 42")
            #expect(view["live_leg"]["share_url"].stringValue == pickupTrip.views?.shareURL)
            #expect(view["live_leg"]["leg"] == "pickup")

            #expect(try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: pickupTrip)]).status == 202)
            try await h.eventually("REACHED_PICKUP") {
                try await h.order(order, token: rider)["status"] == "REACHED_PICKUP"
            }

            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/start", token: driver).status == 200)
            try await h.eventually("DROPPING_OFF") {
                try await h.order(order, token: rider)["status"] == "DROPPING_OFF"
            }
            try await h.eventually("the pickup trip is completed") {
                tracking.trips.first?.status == .completed
            }
            let dropoffTrip = try #require(tracking.trips.last)
            #expect(dropoffTrip.metadata?["leg"] == "dropoff")
            #expect(dropoffTrip.destination?.point == Coordinate(latitude: 52.5163, longitude: 13.3777))

            // A late, repeated pickup arrival must not move the order.
            try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: pickupTrip)])
            try await h.webhook([RideHarness.tripEvent("destination_arrival", trip: dropoffTrip)])
            try await h.eventually("REACHED_DROPOFF") {
                try await h.order(order, token: rider)["status"] == "REACHED_DROPOFF"
            }

            let completed = try await h.api.send(.POST, "/v1/orders/\(order)/complete", token: driver)
            #expect(completed.json["status"] == "COMPLETED")
            try await h.eventually("the dropoff trip is completed") { tracking.trips.last?.status == .completed }

            let pickupSummary: JSONValue = [
                "distance": 1500, "duration": 300, "locations": ["type": "LineString", "coordinates": []],
            ]
            let dropoffSummary: JSONValue = [
                "distance": 4200, "duration": 900, "locations": ["type": "LineString", "coordinates": []],
            ]
            try await h.webhook([
                RideHarness.tripEvent("completed", trip: pickupTrip, summary: pickupSummary),
                RideHarness.tripEvent("completed", trip: dropoffTrip, summary: dropoffSummary),
            ])
            try await h.eventually("the order's summary with both legs") {
                try await h.order(order, token: rider)["summary"]["pickup"] != .null
            }
            let summary = try await h.order(order, token: rider)["summary"]
            #expect(summary["total_distance"] == 5700)
            #expect(summary["total_duration"] == 1200)
            #expect(summary["dropoff"]["distance"] == 4200)
            #expect(summary["fare"]["amount"] == 1204)  // 2.50 + 1.20 × 4.2 km + 0.30 × 15 min
            #expect(summary["fare"]["currency"] == "EUR")
            #expect(tracking.calls(.createTrip).count == 2, "exactly one trip per leg")
            let legs = try await h.order(order, token: rider)["legs"].arrayValue
            #expect(legs.map { $0["status"] } == ["completed", "completed"])
        }
    }

    @Test("a cancelled ride completes its trip and frees the driver")
    func cancelledRide() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking) { h in
            let (rider, driver, order) = try await Self.acceptedRide(h, tracking)
            #expect(
                try await h.api.send(.GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: rider)
                    .json["drivers"].arrayValue.isEmpty,
                "a busy driver is not on the map"
            )
            let cancelled = try await h.api.send(
                .POST,
                "/v1/orders/\(order)/cancel",
                json: ["reason": "no longer needed"],
                token: driver
            )
            #expect(cancelled.json["status"] == "CANCELLED")
            try await h.eventually("the pickup trip is completed") { tracking.trips.first?.status == .completed }
            #expect(tracking.calls(.completeTrip).count == 1)
            try await h.eventually("the driver is back on the map") {
                try await h.api.send(.GET, "/v1/drivers/nearby?lat=52.52&lng=13.405", token: rider)
                    .json["drivers"].arrayValue.count == 1
            }
        }
    }

    @Test("a deleted order completes its trip")
    func deletedOrder() async throws {
        let tracking = FakeTripTracking()
        try await RideHarness.with(tracking: tracking) { h in
            let (_, _, order) = try await Self.acceptedRide(h, tracking)
            try await h.client.query(
                "DELETE FROM orders WHERE id = \(UUID(uuidString: order)!)",
                logger: BackendHarness.logger
            )
            try await h.eventually("the pickup trip is completed") { tracking.trips.first?.status == .completed }
        }
    }

    @Test("HyperTrack failing to create the trip is retried by the runtime without a second trip")
    func createTripRetried() async throws {
        let tracking = FakeTripTracking()
        tracking.fail(.createTrip, times: 2)
        try await RideHarness.with(tracking: tracking) { h in
            _ = try await Self.acceptedRide(h, tracking)
            #expect(tracking.calls(.createTrip).count == 3)
            #expect(tracking.trips.count == 1)
        }
    }

    @Test("readyz is ready once every migration is applied")
    func ready() async throws {
        try await RideHarness.with(tracking: FakeTripTracking()) { h in
            let ready = try await h.api.send(.GET, "/readyz")
            #expect(ready.status == 200)
            #expect(ready.json["status"] == "ready")
        }
    }
}
