import Foundation
import Functions
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

@Suite("Trips: the driver's trip list, detail, feedback and program", .timeLimit(.minutes(10)))
struct TripAPITests {
    /// Stores an analysed trip for `driver` that ended `age` ago (by the database's clock) and lasted 10 minutes.
    @discardableResult
    static func storeTrip(
        _ h: BackendHarness,
        driver: String,
        endedSecondsAgo age: Double,
        score: Int? = 90
    ) async throws -> String {
        let driverID = try #require(UUID(uuidString: driver))
        let id = try await h.client.query(
            """
            INSERT INTO driver_trips (driver_id, drive_type, started_at, ended_at, distance, duration, point_count,
                                      score, ratings, events, path)
            VALUES (\(driverID), 'dropoff', now() - (\(age) + 600) * interval '1 second',
                    now() - \(age) * interval '1 second', 4200, 600, 0, \(score),
                    '{"hard_braking": 5, "phone_use": "not_available"}', '[]', '[]')
            RETURNING id
            """,
            logger: BackendHarness.logger
        )
        for try await id in id.decode(UUID.self) { return id.uuidString.lowercased() }
        throw APIClientError.unexpected(0, .null)
    }

    @Test("95 trips page as 30, 30, 30, 5, newest first, with no gaps or repeats while new trips arrive")
    func pagination() async throws {
        try await BackendHarness.with { h in
            let driver = try await h.api.driver(device: "DEV-P")
            var stored: [String] = []
            for minute in 0..<95 {
                stored.append(
                    try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: Double(minute) * 60 + 3600)
                )
            }
            var seen: [String] = []
            var sizes: [Int] = []
            var cursor: String?
            repeat {
                let path = "/v1/drivers/me/trips" + (cursor.map { "?cursor=\($0)" } ?? "")
                let page = try await h.api.send(.GET, path, token: driver.token)
                #expect(page.status == 200)
                let trips = page.json["trips"].arrayValue
                sizes.append(trips.count)
                seen += trips.compactMap { $0["id"].stringValue?.lowercased() }
                cursor = page.json["next_cursor"].stringValue
                // A new trip arrives while the driver pages: it is newer, so it belongs before the first page.
                if sizes.count == 1 { try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: 0) }
            } while cursor != nil && sizes.count < 10
            #expect(sizes == [30, 30, 30, 5])
            #expect(seen == stored, "newest first, each trip once")
            let first = try await h.api.send(.GET, "/v1/drivers/me/trips", token: driver.token)
            #expect(first.json["trips"][0]["ratings"]["hard_braking"] == 5)
            #expect(first.json["trips"][0]["ratings"]["phone_use"] == "not_available")
        }
    }

    @Test(
        "a cursor the API did not make is a 400 problem, never a 500",
        arguments: [
            "garbage", "dDE6MTIzOm5vdC1hLXV1aWQ", "dDI6MTIzOjAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMA", "%00",
            "_",
            String(repeating: "A", count: 400),
        ]
    )
    func badCursor(cursor: String) async throws {
        try await BackendHarness.with { h in
            let driver = try await h.api.driver(device: "DEV-C")
            let reply = try await h.api.send(.GET, "/v1/drivers/me/trips?cursor=\(cursor)", token: driver.token)
            APITests.expectProblem(reply, 400, mentioning: "cursor")
        }
    }

    @Test("feedback is accepted at 6 days 23 hours, refused at 7 days and when repeated; others' trips are 404")
    func feedbackWindow() async throws {
        try await BackendHarness.with { h in
            let driver = try await h.api.driver(device: "DEV-F")
            let other = try await h.api.driver("Otto", device: "DEV-O")
            let recent = try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: 6 * 86400 + 23 * 3600)
            let old = try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: 7 * 86400)
            let path = "/v1/drivers/me/trips/\(recent)/feedback"
            let accepted = try await h.api.send(.POST, path, json: ["kind": "passenger"], token: driver.token)
            #expect(accepted.status == 200)
            #expect(accepted.json["feedback"] == "passenger")
            APITests.expectProblem(
                try await h.api.send(.POST, path, json: ["kind": "not_driving"], token: driver.token),
                409,
                mentioning: "already"
            )
            APITests.expectProblem(
                try await h.api.send(
                    .POST,
                    "/v1/drivers/me/trips/\(old)/feedback",
                    json: ["kind": "not_a_trip"],
                    token: driver.token
                ),
                409,
                mentioning: "7 days"
            )
            // Another driver's trip does not exist for them, whatever they ask.
            for path in ["/v1/drivers/me/trips/\(old)", "/v1/drivers/me/trips/\(old)/map.svg"] {
                APITests.expectProblem(try await h.api.send(.GET, path, token: other.token), 404)
            }
            APITests.expectProblem(
                try await h.api.send(
                    .POST,
                    "/v1/drivers/me/trips/\(old)/feedback",
                    json: ["kind": "passenger"],
                    token: other.token
                ),
                404
            )
            APITests.expectProblem(
                try await h.api.send(.GET, "/v1/drivers/me/trips/not-a-uuid", token: driver.token),
                404
            )
            APITests.expectProblem(
                try await h.api.send(
                    .POST,
                    "/v1/drivers/me/trips/\(old)/feedback",
                    json: ["kind": "bored"],
                    token: driver.token
                ),
                422,
                mentioning: "kind"
            )
            let rider = try await h.api.rider()
            APITests.expectProblem(try await h.api.send(.GET, "/v1/drivers/me/trips", token: rider.token), 403)
            APITests.expectProblem(try await h.api.send(.GET, "/v1/drivers/me/trips"), 401)
            // The refused requests changed nothing.
            let rows = try await h.client.query(
                "SELECT count(*)::bigint FROM driver_trips WHERE feedback IS NOT NULL",
                logger: BackendHarness.logger
            )
            for try await count in rows.decode(Int64.self) { #expect(count == 1) }
        }
    }

    @Test("the program shows the rule and progress; once qualified, feedback is refused with the reason")
    func program() async throws {
        var configuration = Backend.Configuration(webhook: .init(secret: "whsec-test"))
        configuration.trips.program = .init(minimumTrips: 3, minimumAverageScore: 80, windowDays: 30)
        try await BackendHarness.with(configuration: configuration) { h in
            let driver = try await h.api.driver(device: "DEV-Q")
            let empty = try await h.api.send(.GET, "/v1/drivers/me/program", token: driver.token)
            #expect(empty.status == 200)
            #expect(empty.json["rule"]["minimum_trips"] == 3)
            #expect(empty.json["rule"]["minimum_average_score"] == 80)
            #expect(empty.json["rule"]["window_days"] == 30)
            #expect(empty.json["scored_trips"] == 0)
            #expect(empty.json["trips_needed"] == 3)
            #expect(empty.json["qualified"] == false)

            let low = try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: 3600, score: 40)
            try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: 7200, score: 95)
            try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: 9000, score: 95)
            // Out of the window:
            try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: 31 * 86400, score: 100)
            try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: 600, score: nil)  // unrated
            let below = try await h.api.send(.GET, "/v1/drivers/me/program", token: driver.token)
            #expect(below.json["scored_trips"] == 3)
            #expect(below.json["average_score"].doubleValue.map { abs($0 - 230.0 / 3) < 1e-9 } == true)
            #expect(below.json["qualified"] == false)

            // Removing the bad trip is allowed while not qualified, and qualifies with one more good trip.
            let removed = try await h.api.send(
                .POST,
                "/v1/drivers/me/trips/\(low)/feedback",
                json: ["kind": "not_driving"],
                token: driver.token
            )
            #expect(removed.status == 200)
            let good = try await Self.storeTrip(h, driver: driver.id, endedSecondsAgo: 60, score: 85)
            let qualified = try await h.api.send(.GET, "/v1/drivers/me/program", token: driver.token)
            #expect(qualified.json["scored_trips"] == 3)
            #expect(qualified.json["trips_needed"] == 0)
            #expect(qualified.json["qualified"] == true)
            APITests.expectProblem(
                try await h.api.send(
                    .POST,
                    "/v1/drivers/me/trips/\(good)/feedback",
                    json: ["kind": "passenger"],
                    token: driver.token
                ),
                409,
                mentioning: "qualified"
            )
        }
    }
}
