import Foundation
import Functions
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

/// Issue 18's hostile inputs, each through the real router: none is a 500, each is a problem naming what is wrong,
/// and none changes anything.
@Suite("Functions: the API's input rules", .timeLimit(.minutes(10)))
struct InputRulesTests {
    static func count(_ table: String, _ h: BackendHarness) async throws -> Int {
        let rows = try await h.client.query(
            PostgresQuery(unsafeSQL: "SELECT count(*)::int8 FROM \(table)"),
            logger: BackendHarness.logger
        )
        var total = 0
        for try await value in rows.decode(Int.self) { total = value }
        return total
    }

    static let controlCharacterCases: [(String, JSONValue, String)] = [
        ("rider", ["name": "Ri\u{0}a"], "name"),
        ("rider", ["name": "Ria\u{1B}[2J"], "name"),
        ("rider", ["name": "Ri\na"], "name"),
        ("driver", ["name": "D", "device_id": "DEV\u{0}", "car": ["model": "M", "plate": "P"]], "device_id"),
        ("driver", ["name": "D", "device_id": "DEV", "car": ["model": "M", "plate": "P\u{7F}"]], "car.plate"),
    ]

    @Test("NUL and other control characters are a 422 naming the field", arguments: Self.controlCharacterCases)
    func controlCharacters(role: String, body: JSONValue, field: String) async throws {
        try await BackendHarness.with { h in
            let session = try await h.api.signIn(phone: APIClient.newPhone(), role: role)
            let reply = try await h.api.send(.PUT, "/v1/me", json: body, token: session.accessToken)
            APITests.expectProblem(reply, 422, mentioning: "\(field): must not contain control characters")
            #expect(try await h.api.send(.GET, "/v1/me", token: session.accessToken).json["name"] == .null)
            let code = try await h.api.send(.POST, "/v1/auth/code", json: ["phone": "+49\u{0}30", "role": "rider"])
            APITests.expectProblem(code, 422, mentioning: "phone: must not contain control characters")
            #expect(try await Self.count("auth_codes", h) == 1, "only the sign-in's code")
        }
    }

    @Test("a NUL in a cancel reason or an address is a 422, and the order is unchanged")
    func controlCharactersInOrders() async throws {
        try await BackendHarness.with { h in
            let rider = try await h.api.rider()
            let book: JSONValue = [
                "pickup": ["lat": 52.52, "lng": 13.405, "address": "Alex\u{0}"], "dropoff": ["lat": 52.5, "lng": 13.3],
            ]
            APITests.expectProblem(
                try await h.api.send(.POST, "/v1/orders", json: book, token: rider.token),
                422,
                mentioning: "pickup.address"
            )
            let order = try #require(
                try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token).json["id"]
                    .stringValue
            )
            let cancel = try await h.api.send(
                .POST,
                "/v1/orders/\(order)/cancel",
                json: ["reason": "no\u{0}"],
                token: rider.token
            )
            APITests.expectProblem(cancel, 422, mentioning: "reason")
            #expect(try await h.api.send(.GET, "/v1/orders/\(order)", token: rider.token).json["status"] == "NEW")
        }
    }

    @Test("lengths are counted in code points, as PostgreSQL's length() counts them")
    func lengths() async throws {
        try await BackendHarness.with { h in
            // 200 family emoji: 200 Swift Characters, 1,000 code points.
            let family = String(repeating: "👩‍👧‍👦", count: 200)
            #expect(family.count == 200)
            let token = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider").accessToken
            APITests.expectProblem(
                try await h.api.send(.PUT, "/v1/me", json: ["name": .string(family)], token: token),
                422,
                mentioning: "name: must be 1 to 200 characters"
            )
            // 100 letters with a combining accent: 100 Characters, 200 code points, exactly the limit.
            let accented = String(repeating: "e\u{301}", count: 100)
            let reply = try await h.api.send(.PUT, "/v1/me", json: ["name": .string(accented)], token: token)
            #expect(reply.status == 200, "\(reply.json)")
            #expect(reply.json["name"].stringValue?.unicodeScalars.count == 200)
            let longer = accented + "e"
            APITests.expectProblem(
                try await h.api.send(.PUT, "/v1/me", json: ["name": .string(longer)], token: token),
                422,
                mentioning: "name"
            )
            #expect(try await h.api.send(.GET, "/v1/me", token: token).json["name"].stringValue == accented)
        }
    }

    static let badCursors = [
        "9223372036854775807_00000000-0000-0000-0000-000000000000",
        "-9223372036854775808_00000000-0000-0000-0000-000000000000",
        "99999999999999999999999_00000000-0000-0000-0000-000000000000",
        "253402300800000000_00000000-0000-0000-0000-000000000000",
        "1_not-a-uuid",
        "_",
    ]

    @Test("subnormal coordinates (valid JSON, in range) are rounded, not a float underflow in the database")
    func subnormalCoordinates() async throws {
        try await BackendHarness.with { h in
            let rider = try await h.api.rider()
            let nearby = try await h.api.send(
                .GET, "/v1/drivers/nearby?lng=5e-324&lat=-1.401298464324817e-45", token: rider.token
            )
            #expect(nearby.status == 200, "\(nearby.json)")
            let tiny = JSONValue.number(Double.leastNonzeroMagnitude)  // 5e-324, the smallest subnormal
            let book: JSONValue = ["pickup": ["lat": tiny, "lng": 13.4], "dropoff": ["lat": 52.5, "lng": .number(-Double.leastNonzeroMagnitude)]]
            let booked = try await h.api.send(.POST, "/v1/orders", json: book, token: rider.token)
            #expect(booked.status == 201, "\(booked.json)")
            #expect(booked.json["pickup"]["lat"] == 0)
        }
    }

    @Test("a cursor out of range is a 422, not an overflow in the database", arguments: Self.badCursors)
    func cursors(cursor: String) async throws {
        try await BackendHarness.with { h in
            let rider = try await h.api.rider()
            let reply = try await h.api.send(.GET, "/v1/orders?cursor=\(cursor)", token: rider.token)
            APITests.expectProblem(reply, 422, mentioning: "cursor")
        }
    }

    static let wrongMethods: [(NIOHTTP1.HTTPMethod, String, String)] = [
        (.DELETE, "/v1/me", "GET, PUT"),
        (.PUT, "/v1/orders", "GET, POST"),
        (.GET, "/v1/auth/code", "POST"),
        (.GET, "/v1/orders/00000000-0000-0000-0000-000000000000/cancel", "POST"),
        (.PATCH, "/v1/orders/00000000-0000-0000-0000-000000000000", "GET"),
        (.POST, "/healthz", "GET"),
    ]

    @Test("a known path with the wrong method is a 405 with Allow", arguments: Self.wrongMethods)
    func wrongMethod(method: NIOHTTP1.HTTPMethod, path: String, allow: String) async throws {
        try await BackendHarness.with { h in
            let rider = try await h.api.rider()
            let reply = try await h.api.send(method, path, token: rider.token)
            APITests.expectProblem(reply, 405, mentioning: allow)
            #expect(reply.headers.first { $0.0.lowercased() == "allow" }?.1 == allow)
            APITests.expectProblem(try await h.api.send(method, "/v1/nowhere", token: rider.token), 404)
        }
    }

    @Test(
        "a body that is not a JSON object is a 422 naming the body",
        arguments: ["[]", "[{\"name\":\"R\"}]", "null", "5"]
    )
    func nonObjectBody(body: String) async throws {
        try await BackendHarness.with { h in
            let reply = try await h.api.send(.POST, "/v1/auth/code", rawBody: Data(body.utf8))
            APITests.expectProblem(reply, 422, mentioning: "body: must be a JSON object")
        }
    }
}
