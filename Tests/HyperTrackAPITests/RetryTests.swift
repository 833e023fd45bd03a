import Foundation
import Logging
import Testing

@testable import HyperTrackAPI

@Suite("Retries")
struct RetryTests {
    @Test func a429IsRetriedAfterRetryAfter() async throws {
        try await withHyperTrack { fake, client, logs in
            let trip = try await client.createTrip(CreateTripRequest(deviceID: "D1"))
            let body = #"{"status":429,"code":"too_many_requests","title":"Too Many Requests","detail":"slow down","message":"Too Many Requests"}"#
            await fake.script("GET", "/trips/\(trip.tripID)", ScriptedAnswer(status: 429, headers: [("Retry-After", "1")], body: body))
            let started = ContinuousClock.now
            let read = try await client.trip(id: trip.tripID)
            #expect(read.tripID == trip.tripID)
            #expect(await fake.requests("GET", "/trips/\(trip.tripID)").count == 2)
            // The wait is at least what Retry-After said (a lower bound holds on any machine).
            #expect(ContinuousClock.now - started >= .milliseconds(950))
            let retry = try #require(logs.entries.first { $0.message == "HyperTrack request will be retried" })
            #expect(retry.metadata["retry.delay"] == "1.0 seconds")
        }
    }

    @Test func a429BodyCarriesBothErrorForms() async throws {
        try await withHyperTrack { fake, client, _ in
            let body = #"{"status":429,"code":"too_many_requests","title":"Too Many Requests","detail":"slow down","message":"Too Many Requests"}"#
            await fake.script("GET", "/trips/t", ScriptedAnswer(status: 429, headers: [("Retry-After", "120")], body: body))
            // Retry-After beyond the policy's maximum (5 s in tests): not waited for, returned to the caller.
            let error = try #require(await #expect(throws: HyperTrackAPIError.self) { try await client.trip(id: "t") })
            #expect(error.status == 429)
            #expect(error.retryAfter == .seconds(120))
            #expect(error.problemCode == "too_many_requests")
            #expect(error.problem?.message == "Too Many Requests")
            #expect(await fake.requests("GET", "/trips/t").count == 1)
        }
    }

    @Test func fiveHundredsAreRetriedWithBackoffUntilTheLimit() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.addDevice("D1")
            await fake.script("GET", "/devices/D1", ScriptedAnswer(status: 503, body: #"{"message": "Service Unavailable"}"#), count: 2)
            #expect(try await client.device(id: "D1").deviceID == "D1")
            #expect(await fake.requests("GET", "/devices/D1").count == 3)

            await fake.script("PATCH", "/devices/D1", ScriptedAnswer(status: 500), count: 1)
            try await client.setDeviceName(id: "D1", name: "n")
            #expect(await fake.requests("PATCH", "/devices/D1").count == 2)

            await fake.script("POST", "/devices/D1/start", ScriptedAnswer(status: 504), count: 1)
            try await client.startTracking(deviceID: "D1")
            #expect(await fake.requests("POST", "/devices/D1/start").count == 2)

            await fake.script("GET", "/devices/D1", ScriptedAnswer(status: 503), count: 3)
            let error = try #require(await #expect(throws: HyperTrackAPIError.self) { try await client.device(id: "D1") })
            #expect(error.status == 503)
            #expect(await fake.requests("GET", "/devices/D1").count == 6)
        }
    }

    @Test func clientErrorsAreNotRetried() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.script("GET", "/trips/t", ScriptedAnswer(status: 400, body: #"{"status":400,"code":"bad","title":"Bad"}"#))
            await #expect(throws: HyperTrackAPIError.self) { try await client.trip(id: "t") }
            #expect(await fake.requests("GET", "/trips/t").count == 1)
        }
    }

    @Test func nearbyStartIsNotRetried() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.script("POST", "/devices/nearby", ScriptedAnswer(status: 503), count: 3)
            await #expect(throws: HyperTrackAPIError.self) {
                try await client.startNearby(NearbyRequest(location: Coordinate(latitude: 0, longitude: 0), radius: 10))
            }
            #expect(await fake.requests("POST", "/devices/nearby").count == 1)
        }
    }

    @Test func retryAfterAcceptsSecondsAndHTTPDates() throws {
        let now = try #require(HyperTrackDate.parse("2015-10-21T07:27:30Z"))
        #expect(HyperTrackClient.parseRetryAfter("3", now: now) == .seconds(3))
        #expect(HyperTrackClient.parseRetryAfter("0.5", now: now) == .milliseconds(500))
        #expect(HyperTrackClient.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(30))
        #expect(HyperTrackClient.parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == .zero)
        #expect(HyperTrackClient.parseRetryAfter("soon", now: now) == nil)
        #expect(HyperTrackClient.parseRetryAfter("-1", now: now) == nil)
    }

    @Test func backoffGrowsAndIsCapped() {
        let policy = RetryPolicy(maxAttempts: 10, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), multiplier: 2, jitter: 0)
        #expect(
            (1...6).map { policy.backoff(beforeRetry: $0) } == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1),
            ]
        )
        let jittered = RetryPolicy(initialBackoff: .seconds(1), jitter: 0.5)
        for _ in 0..<50 {
            let wait = jittered.backoff(beforeRetry: 1)
            #expect(wait >= .milliseconds(500) && wait <= .seconds(1))
        }
        #expect(RetryPolicy.none.maxAttempts == 1)
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }
}
