import Foundation
import Functions
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

/// Issue 18: a 2.57 MB order. Order views carry a simplified route of bounded size; the full one is its own route.
@Suite("Functions: order responses stay small", .timeLimit(.minutes(10)))
struct RouteSizeTests {
    /// A 20,000-point planned route: 10 km east along a wiggle of a few centimetres, then a right angle north.
    static let route: [[Double]] = (0..<20_000).map { (index: Int) -> [Double] in
        let step = Double(index) * 0.00001
        let wiggle: Double = index % 2 == 0 ? 0 : 0.0000001
        guard index >= 15_000 else { return [13.4 + step, 52.5 + wiggle] }
        return [13.55, 52.5 + Double(index - 15_000) * 0.00001]
    }

    @Test("an order with a 20,000-point route is a few kB in every view; /route has every point")
    func bounded() async throws {
        try await BackendHarness.with { h in
            let rider = try await h.api.rider()
            let order = try #require(
                try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token).json["id"]
                    .stringValue
            )
            let json = String(decoding: try JSONEncoder().encode(Self.route), as: UTF8.self)
            #expect(json.utf8.count > 300_000, "the full route is big: \(json.utf8.count) bytes")
            try await h.client.query(
                """
                INSERT INTO order_legs (order_id, leg, device_id, trip_id, estimate_route)
                VALUES (\(UUID(uuidString: order)!), 'pickup', 'DEV-1', 'trip-1', \(json)::jsonb)
                """,
                logger: BackendHarness.logger
            )
            let single = try await h.api.send(.GET, "/v1/orders/\(order)", token: rider.token)
            let size = try JSONEncoder().encode(single.json).count
            #expect(size < 8_000, "one order is \(size) bytes")
            let points = single.json["legs"][0]["route"].arrayValue
            #expect(points.count <= 50 && points.count >= 3)
            let pairs = points.map { [$0[0].doubleValue ?? .nan, $0[1].doubleValue ?? .nan] }
            #expect(pairs.first == Self.route.first)
            #expect(pairs.last == Self.route.last)
            #expect(pairs.contains(Self.route[15_000]), "the corner is kept")

            let page = try await h.api.send(.GET, "/v1/orders", token: rider.token)
            #expect(try JSONEncoder().encode(page.json).count < 8_000)
            #expect(page.json["orders"][0]["legs"][0]["route"].arrayValue.count == points.count)

            let full = try await h.api.send(.GET, "/v1/orders/\(order)/route", token: rider.token)
            #expect(full.status == 200)
            #expect(full.json["order_id"].stringValue == order)
            #expect(full.json["legs"][0]["leg"] == "pickup")
            #expect(full.json["legs"][0]["route"].arrayValue.count == 20_000)
            let stranger = try await h.api.rider("Stranger")
            APITests.expectProblem(try await h.api.send(.GET, "/v1/orders/\(order)/route", token: stranger.token), 404)
        }
    }
}
