import Foundation
import Functions
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

/// Operators' keys: created once, listed, revoked at once; the operational routes answer only to a working key.
@Suite("Functions: operators' keys and the operational routes", .timeLimit(.minutes(10)))
struct OperatorTests {
    @Test("a key works on /v1/ops until it is revoked; a name with a working key cannot be created twice")
    func keys() async throws {
        try await BackendHarness.with { h in
            let store = OperatorStore(client: h.client, logger: BackendHarness.logger)
            let key = try #require(try await store.create(name: "ops-1"))
            #expect(try await store.create(name: "ops-1") == nil)
            let rider = try await h.api.rider()
            let booked = try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token)
            let orders = try await h.api.send(.GET, "/v1/ops/orders?status=NEW", token: key)
            #expect(orders.status == 200)
            #expect(orders.json["orders"][0]["id"] == booked.json["id"])
            #expect(
                try await h.api.send(.GET, "/v1/ops/orders?status=COMPLETED", token: key).json["orders"].arrayValue
                    .isEmpty
            )
            APITests.expectProblem(
                try await h.api.send(.GET, "/v1/ops/orders?status=LOST", token: key),
                422,
                mentioning: "status"
            )
            APITests.expectProblem(
                try await h.api.send(.GET, "/v1/ops/orders", token: rider.token),
                403,
                mentioning: "operator key"
            )
            let rows = try await h.client.query("SELECT key_hash FROM operators", logger: BackendHarness.logger)
            for try await hash in rows.decode(String.self) { #expect(hash.count == 64 && !key.contains(hash)) }
            #expect(try await store.list().map(\.name) == ["ops-1"])
            #expect(try await store.revoke(name: "ops-1"))
            APITests.expectProblem(try await h.api.send(.GET, "/v1/ops/orders", token: key), 401)
            #expect(try await store.list().first?.revokedAt != nil)
            let again = try #require(try await store.create(name: "ops-1"), "a revoked name gets a new key")
            #expect(again != key)
            #expect(try await h.api.send(.GET, "/v1/ops/deliveries/dead", token: again).status == 200)
        }
    }
}
