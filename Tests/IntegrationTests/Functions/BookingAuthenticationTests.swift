import Foundation
@testable import Functions
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing
import TriggerRuntime

/// `POST /v1/orders` authenticates in the booking's own statement (`PreparedStatements.BookAndOfferWithToken`), not
/// through `BearerAuthMiddleware`'s lookup before it: these check that it answers every caller as the middleware did
/// and writes nothing for one it refuses, and that the statement alone books only for a live session's rider.
@Suite("Functions: a booking authenticates in its own statement")
struct BookingAuthenticationTests {
    static func count(_ h: BackendHarness, _ table: String) async throws -> Int {
        try await BookingDispatchTests.strings(h, "SELECT count(*)::text FROM \(table)").first.flatMap { Int($0) } ?? -1
    }

    /// Nothing of a booking is written: no order, offer, timer or order event.
    static func expectNothingBooked(_ h: BackendHarness, _ comment: Comment) async throws {
        for table in ["orders", "order_offers", "trigger_runtime.timers", "order_events"] {
            #expect(try await Self.count(h, table) == 0, "\(table): \(comment)")
        }
    }

    static let badBody: JSONValue = ["pickup": ["lat": 95, "lng": 13.4], "dropoff": ["lat": 52.5, "lng": 13.4]]

    @Test("the answers are the middleware's: 401 for no, unknown, revoked or expired tokens, 403 for a driver, 409 for a rider without a name, each before the body's 422 and writing nothing")
    func refusals() async throws {
        try await BackendHarness.with { h in
            _ = try await BookingDispatchTests.driverAtPickup(h, "Dana", device: "DEV-1")
            let driver = try await h.api.driver("Dov", device: "DEV-2", online: false)

            APITests.expectProblem(try await h.api.send(.POST, "/v1/orders", json: APITests.book), 401)
            APITests.expectProblem(try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: "nope"), 401)
            // Who calls is answered before what they sent, as behind the middleware.
            APITests.expectProblem(try await h.api.send(.POST, "/v1/orders", json: Self.badBody, token: "nope"), 401)
            APITests.expectProblem(
                try await h.api.send(.POST, "/v1/orders", json: Self.badBody, token: driver.token),
                403,
                mentioning: "only riders"
            )
            APITests.expectProblem(
                try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: driver.token),
                403,
                mentioning: "only riders"
            )
            let rider = try await h.api.rider()
            APITests.expectProblem(
                try await h.api.send(.POST, "/v1/orders", json: Self.badBody, token: rider.token),
                422,
                mentioning: "pickup.lat"
            )

            // A session signed out, and one whose access token expired.
            let revoked = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider")
            _ = try await h.api.send(.PUT, "/v1/me", json: ["name": "Rev"], token: revoked.accessToken)
            #expect(try await h.api.send(.POST, "/v1/auth/signout", token: revoked.accessToken).status == 204)
            APITests.expectProblem(
                try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: revoked.accessToken),
                401
            )
            let expired = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider")
            _ = try await h.api.send(.PUT, "/v1/me", json: ["name": "Exp"], token: expired.accessToken)
            _ = try await h.client.query(
                """
                UPDATE auth_tokens SET expires_at = now() - interval '1 second'
                WHERE kind = 'access' AND session_id = \(UUID(uuidString: expired.sessionID)!)
                """,
                logger: BackendHarness.logger
            ).collect()
            APITests.expectProblem(
                try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: expired.accessToken),
                401
            )
            // Signed in, never named.
            let nameless = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider")
            APITests.expectProblem(
                try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: nameless.accessToken),
                409,
                mentioning: "complete your profile"
            )
            try await Self.expectNothingBooked(h, "every booking above was refused")

            // The live rider books once; again while the order is open is the open-order 409.
            #expect(try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token).status == 201)
            APITests.expectProblem(
                try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: rider.token),
                409,
                mentioning: "open order"
            )
            #expect(try await Self.count(h, "orders") == 1)
            #expect(try await Self.count(h, "order_offers") == 1)
        }
    }

    @Test("a token issued before sign-in by code still books: the statement does not know it, the middleware's lookup does")
    func legacyToken() async throws {
        try await BackendHarness.with { h in
            let ids = try await BookingDispatchTests.strings(
                h, "INSERT INTO users (role, name, phone) VALUES ('rider', 'Old', '+49 30 7777') RETURNING id::text"
            )
            let user = try #require(ids.first)
            _ = try await h.client.query(
                """
                INSERT INTO api_tokens (token_hash, user_id, expires_at)
                VALUES (encode(sha256('rs_legacy'::bytea), 'hex'), \(UUID(uuidString: user)!),
                        now() + interval '30 days')
                """,
                logger: BackendHarness.logger
            ).collect()
            let booked = try await h.api.send(.POST, "/v1/orders", json: APITests.book, token: "rs_legacy")
            #expect(booked.status == 201)
            #expect(try await BookingDispatchTests.strings(h, "SELECT rider_id::text FROM orders") == [user])
        }
    }

    @Test("the statement books for a live session's rider with a name and for nobody else, writing nothing then")
    func statement() async throws {
        try await BackendHarness.with { h in
            _ = try await BookingDispatchTests.driverAtPickup(h, "Dana", device: "DEV-1")
            let store = PostgresRideStore(executor: h.client, logger: BackendHarness.logger)
            let round = try #require(h.backend.bookingRound)
            let pickup = OrderRow.Place(latitude: 52.52, longitude: 13.405, address: nil)
            let dropoff = OrderRow.Place(latitude: 52.50, longitude: 13.40, address: nil)
            func book(_ token: String) async throws -> (order: OrderRow, offered: Int)? {
                try await store.bookAndOffer(
                    tokenHash: Tokens.hash(token),
                    pickup: pickup,
                    dropoff: dropoff,
                    round: round
                )
            }

            let driver = try await h.api.driver("Dov", device: "DEV-2", online: false)
            let nameless = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider")
            let signedOut = try await h.api.signIn(phone: APIClient.newPhone(), role: "rider")
            _ = try await h.api.send(.PUT, "/v1/me", json: ["name": "Out"], token: signedOut.accessToken)
            #expect(try await h.api.send(.POST, "/v1/auth/signout", token: signedOut.accessToken).status == 204)
            for (token, who) in [
                ("nope", "an unknown token"), (driver.token, "a driver"),
                (nameless.accessToken, "a rider without a name"),
                (signedOut.accessToken, "a signed-out session"), (nameless.refreshToken, "a refresh token"),
            ] {
                #expect(try await book(token) == nil, "\(who)")
            }
            try await Self.expectNothingBooked(h, "the statement refused each")

            let rider = try await h.api.rider()
            let booked = try #require(try await book(rider.token))
            #expect(booked.order.riderID.uuidString.lowercased() == rider.id.lowercased())
            #expect(booked.offered == 1)
            #expect(try await BookingDispatchTests.strings(h, "SELECT dispatch_round::text FROM orders") == ["1"])
            #expect(try await Self.count(h, "trigger_runtime.timers") == 2, "the round's and the window's")
            do {
                _ = try await book(rider.token)
                Issue.record("a second open order was booked")
            } catch let error as FunctionsError {
                #expect(error.code == .riderBusy)
            }
            #expect(try await Self.count(h, "orders") == 1)
        }
    }
}
