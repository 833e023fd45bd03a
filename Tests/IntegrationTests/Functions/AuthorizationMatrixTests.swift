import Foundation
import Functions
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

/// Every route of the router against every kind of caller, each cell's status generated from ``table``: a route
/// the router has and the table does not fails the test, naming it. Adding a route is one line in the table.
///
/// The world: rider R with an order O (NEW; no worker runs, so nobody is offered it) and its share link, another
/// rider, two drivers with complete profiles, and three riders whose token no longer works (access token expired,
/// session signed out, session revoked by refresh-token reuse). Rows run in route order with `POST /v1/auth/signout` last, and within a
/// row the owner R runs last, so R's cancel of O and sign-out come after everyone else's cells.
@Suite("Functions: the authorization matrix", .timeLimit(.minutes(10)))
struct AuthorizationMatrixTests {
    enum Role: String, CaseIterable, Sendable {
        case anonymous, expired, revoked, refreshReuse, `operator`, otherRider, otherDriver, driver, rider
    }

    /// Who gets what: the same status for every caller (public routes); the four signed-in callers' statuses
    /// (every token that does not work, no token and an operator's key get 401); or the operator's status on the
    /// operational routes (riders and drivers 403, the rest 401).
    enum Access: Sendable {
        case everyone(Int)
        case signedIn(rider: Int, otherRider: Int, driver: Int, otherDriver: Int)
        case operators(Int)

        static func riders(_ ok: Int) -> Access { .signedIn(rider: ok, otherRider: ok, driver: 403, otherDriver: 403) }
        static func drivers(_ ok: Int) -> Access { .signedIn(rider: 403, otherRider: 403, driver: ok, otherDriver: ok) }
        static func anyUser(_ ok: Int) -> Access { .signedIn(rider: ok, otherRider: ok, driver: ok, otherDriver: ok) }

        func status(_ role: Role) -> Int {
            switch (self, role) {
            case (.everyone(let status), _): status
            case (.operators(let status), .operator): status
            case (.operators, .rider), (.operators, .otherRider), (.operators, .driver), (.operators, .otherDriver): 403
            case (.operators, _): 401
            case (.signedIn(let rider, _, _, _), .rider): rider
            case (.signedIn(_, let other, _, _), .otherRider): other
            case (.signedIn(_, _, let driver, _), .driver): driver
            case (.signedIn(_, _, _, let other), .otherDriver): other
            case (.signedIn, _): 401
            }
        }
    }

    /// One route's cell: who gets what, and the request's body and query. `{id}` of an order is O, of a session R's
    /// second session, of a trip an unknown trip; `{secret}` and `{phone}` are wrong ones.
    struct Entry: Sendable {
        var access: Access
        var body: JSONValue? = nil
        var query = ""
    }

    static let table: [String: Entry] = [
        "GET /healthz": Entry(access: .everyone(200)),
        "GET /readyz": Entry(access: .everyone(503)),  // the harness applies migrations without recording them
        "GET /openapi.json": Entry(access: .everyone(200)),
        "GET /local/auth/codes/{phone}": Entry(access: .everyone(404)),
        "POST /v1/auth/code": Entry(access: .everyone(202), body: ["phone": "{newPhone}", "role": "rider"]),
        "POST /v1/auth/session": Entry(access: .everyone(401), body: ["phone": "{newPhone}", "code": "123456"]),
        "POST /v1/auth/refresh": Entry(access: .everyone(401), body: ["refresh_token": "rs_rt_unknown"]),
        "POST /v1/auth/signout": Entry(access: .anyUser(204)),
        "GET /v1/me": Entry(access: .anyUser(200)),
        "PUT /v1/me": Entry(
            access: .signedIn(rider: 200, otherRider: 200, driver: 422, otherDriver: 422),
            body: ["name": "Matrix"]
        ),
        "GET /v1/me/sessions": Entry(access: .anyUser(200)),
        "DELETE /v1/me/sessions/{id}": Entry(
            access: .signedIn(rider: 204, otherRider: 404, driver: 404, otherDriver: 404)
        ),
        "POST /v1/orders": Entry(
            access: .signedIn(rider: 409, otherRider: 201, driver: 403, otherDriver: 403),
            body: ["pickup": ["lat": 52.52, "lng": 13.405], "dropoff": ["lat": 52.5163, "lng": 13.3777]]
        ),
        "GET /v1/orders": Entry(access: .anyUser(200)),
        "GET /v1/orders/{id}": Entry(access: .signedIn(rider: 200, otherRider: 404, driver: 404, otherDriver: 404)),
        "GET /v1/orders/{id}/route": Entry(
            access: .signedIn(rider: 200, otherRider: 404, driver: 404, otherDriver: 404)
        ),
        "POST /v1/orders/{id}/accept": Entry(access: .drivers(404)),
        "POST /v1/orders/{id}/decline": Entry(access: .drivers(404)),
        "POST /v1/orders/{id}/start": Entry(access: .drivers(404)),
        "POST /v1/orders/{id}/complete": Entry(access: .drivers(404)),
        "POST /v1/orders/{id}/cancel": Entry(
            access: .signedIn(rider: 200, otherRider: 404, driver: 404, otherDriver: 404),
            body: ["reason": "matrix"]
        ),
        "GET /v1/drivers/nearby": Entry(access: .riders(200), query: "?lat=52.52&lng=13.405"),
        "PUT /v1/drivers/me/availability": Entry(access: .drivers(200), body: ["available": false]),
        "GET /v1/offers": Entry(access: .drivers(200)),
        "GET /v1/drivers/me/trips": Entry(access: .drivers(200)),
        "GET /v1/drivers/me/trips/{id}": Entry(access: .drivers(404)),
        "GET /v1/drivers/me/trips/{id}/map.svg": Entry(access: .drivers(404)),
        "POST /v1/drivers/me/trips/{id}/feedback": Entry(access: .drivers(400)),
        "GET /v1/drivers/me/program": Entry(access: .drivers(200)),
        "GET /v1/ops/orders": Entry(access: .operators(200), query: "?status=NEW"),
        "GET /v1/ops/drivers/positions": Entry(access: .operators(200)),
        "GET /v1/ops/deliveries/dead": Entry(access: .operators(200)),
        "POST /v1/ops/deliveries/{id}/retry": Entry(access: .operators(404)),
        // Streams end after `timeout` seconds, so a cell reads a whole response.
        "GET /v1/events": Entry(access: .anyUser(200), query: "?timeout=1"),
        "GET /v1/orders/{id}/events": Entry(
            access: .signedIn(rider: 200, otherRider: 404, driver: 404, otherDriver: 404),
            query: "?timeout=1"
        ),
        "POST /v1/orders/{id}/share": Entry(
            access: .signedIn(rider: 201, otherRider: 404, driver: 403, otherDriver: 403)
        ),
        "DELETE /v1/orders/{id}/share": Entry(
            access: .signedIn(rider: 204, otherRider: 404, driver: 403, otherDriver: 403)
        ),
        // The share page is public: an unknown token is the 404 page; its assets are served to anyone.
        "GET /share/{token}": Entry(access: .everyone(404)),
        "GET /share/{token}/events": Entry(access: .everyone(404)),
        "GET /share/assets/share.js": Entry(access: .everyone(200)),
        "GET /share/assets/share.css": Entry(access: .everyone(200)),
        "POST /v1/hypertrack/webhooks": Entry(access: .everyone(401), body: []),
        "POST /v1/hypertrack/webhooks/{secret}": Entry(access: .everyone(401), body: []),
    ]

    /// The world's tokens and ids.
    struct World: Sendable {
        var tokens: [Role: String]
        var order: String
        var riderSecondSession: String
    }

    static func world(_ h: BackendHarness) async throws -> World {
        let rider = try await h.api.accounts.rider("Ria")
        // R's second session: the one DELETE /v1/me/sessions/{id} revokes (same account: same phone).
        let phone = try #require(
            try await h.api.send(.GET, "/v1/me", token: rider.accessToken).json["phone"].stringValue
        )
        let again = try await h.api.accounts.signIn(phone: phone, role: "rider")
        let booked = try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.accessToken)
        let order = try #require(booked.json["id"].stringValue, "\(booked.json)")
        // O has a share link, so that its rider's DELETE and POST (a replacement) work in either order.
        let shared = try await h.api.send(.POST, "/v1/orders/\(order)/share", token: rider.accessToken)
        #expect(shared.status == 201, "\(shared.json)")
        let otherRider = try await h.api.accounts.rider("Rob")
        let driver = try await h.api.accounts.driver("Dana", device: "MATRIX-1")
        let otherDriver = try await h.api.accounts.driver("Otto", device: "MATRIX-2")
        let expired = try await h.api.accounts.rider("Exa")
        _ = try await h.client.query(
            """
            UPDATE auth_tokens SET expires_at = now() - interval '1 second'
            WHERE session_id = \(try #require(UUID(uuidString: expired.sessionID))) AND kind = 'access'
            """,
            logger: BackendHarness.logger
        ).collect()
        let operatorKey = try #require(
            try await OperatorStore(client: h.client, logger: BackendHarness.logger).create(name: "matrix")
        )
        let revoked = try await h.api.accounts.rider("Rev")
        #expect(try await h.api.send(.POST, "/v1/auth/signout", token: revoked.accessToken).status == 204)
        let reused = try await h.api.accounts.rider("Reu")
        let refresh: JSONValue = ["refresh_token": .string(reused.refreshToken)]
        #expect(try await h.api.send(.POST, "/v1/auth/refresh", json: refresh).status == 200)
        #expect(try await h.api.send(.POST, "/v1/auth/refresh", json: refresh).status == 401)
        return World(
            tokens: [
                .rider: rider.accessToken, .otherRider: otherRider.accessToken, .driver: driver.accessToken,
                .otherDriver: otherDriver.accessToken, .expired: expired.accessToken, .revoked: revoked.accessToken,
                .refreshReuse: reused.accessToken, .operator: operatorKey,
            ],
            order: order,
            riderSecondSession: again.sessionID
        )
    }

    /// `route`'s path with its parameters filled in from the world.
    static func path(_ route: String, world: World) -> String {
        let path = String(route.split(separator: " ")[1])
        let id =
            if path.hasPrefix("/v1/orders/") { world.order } else if path.hasPrefix("/v1/me/sessions/") {
                world.riderSecondSession
            } else { UUID().uuidString }
        return path.replacingOccurrences(of: "{id}", with: id).replacingOccurrences(of: "{secret}", with: "wrong")
            .replacingOccurrences(of: "{phone}", with: "490000").replacingOccurrences(of: "{token}", with: "unknown")
    }

    /// `body` with `"{newPhone}"` replaced by a phone no cell used before (codes are limited per phone).
    static func fill(_ body: JSONValue?) -> JSONValue? {
        guard case .object(var object) = body else { return body }
        for (key, value) in object where value == "{newPhone}" { object[key] = .string(APIClient.newPhone()) }
        return .object(object)
    }

    @Test("every route × every caller answers the table's status; every route has an entry")
    func matrix() async throws {
        try await BackendHarness.with { h in
            let routes = h.backend.routeList(client: h.client, logger: BackendHarness.logger)
            for route in routes where Self.table[route] == nil {
                Issue.record(
                    "\(route) has no entry in AuthorizationMatrixTests.table: add one line saying who gets what"
                )
            }
            for entry in Self.table.keys where !routes.contains(entry) {
                Issue.record("AuthorizationMatrixTests.table has \(entry), which the router does not route")
            }
            let world = try await Self.world(h)
            let ordered = routes.filter { $0 != "POST /v1/auth/signout" } + ["POST /v1/auth/signout"]
            for route in ordered {
                guard let entry = Self.table[route] else { continue }
                let method = NIOHTTP1.HTTPMethod(rawValue: String(route.split(separator: " ")[0]))
                for role in Role.allCases {
                    let reply = try await h.api.send(
                        method,
                        Self.path(route, world: world) + entry.query,
                        json: Self.fill(entry.body),
                        token: world.tokens[role]
                    )
                    let expected = entry.access.status(role)
                    #expect(
                        reply.status == expected,
                        "\(route) as \(role): \(reply.status) \(reply.json), expected \(expected)"
                    )
                }
            }
        }
    }
}
