import AsyncHTTPClient
import Foundation
import HyperTrackAPI
import Testing

@Suite("Error answers")
struct ErrorTests {
    @Test func problemDocumentsBecomeTypedErrors() async throws {
        try await withHyperTrack { fake, client, _ in
            let body = """
                {"status": 400, "code": "validation_error", "title": "Validation failed", "type": "about:blank",
                 "detail": "device_id is required", "invalid_params": [{"name": "device_id", "reason": "required"}]}
                """
            await fake.script("POST", "/trips", ScriptedAnswer(status: 400, body: body))
            let error = try #require(
                await #expect(throws: HyperTrackAPIError.self) {
                    try await client.createTrip(CreateTripRequest(deviceID: "D1"))
                }
            )
            #expect(error.code == .httpStatus)
            #expect(error.status == 400)
            #expect(error.problem?.status == 400)
            #expect(error.problemCode == "validation_error")
            #expect(error.problem?.title == "Validation failed")
            #expect(error.problem?.type == "about:blank")
            #expect(error.problem?.detail == "device_id is required")
            #expect(error.problem?.invalidParams == [["name": "device_id", "reason": "required"]])
            #expect(error.method == "POST")
            #expect(error.path == "/trips")
            #expect(error.description.contains("validation_error"))
        }
    }

    @Test func unauthorizedUsesTheMessageFormAndIsNotRetried() async throws {
        try await FakeHyperTrack.withServer { fake in
            let (client, logs) = try await fake.client(secretKey: "wrong-secret-value")
            let error = try #require(await #expect(throws: HyperTrackAPIError.self) { try await client.trip(id: "t") })
            #expect(error.code == .unauthorized)
            #expect(error.status == 401)
            #expect(error.problem?.message == "Unauthorized")
            #expect(error.problemCode == nil)
            #expect(await fake.requests.count == 1)
            for text in [error.description, error.debugDescription, logs.text] {
                #expect(!text.contains("wrong-secret-value"))
            }
        }
    }

    @Test func aNonJSONErrorBodyIsKeptForDebuggingOnly() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.script("GET", "/trips/t1", ScriptedAnswer(status: 502, body: "<html>bad gateway</html>"), count: 3)
            let error = try #require(await #expect(throws: HyperTrackAPIError.self) { try await client.trip(id: "t1") })
            #expect(error.code == .httpStatus)
            #expect(error.status == 502)
            #expect(error.problem == nil)
            #expect(error.responseBody == "<html>bad gateway</html>")
            #expect(!error.description.contains("<html>"))
            #expect(error.debugDescription.contains("<html>bad gateway</html>"))
            #expect(await fake.requests("GET", "/trips/t1").count == 3)
        }
    }

    @Test(arguments: ["not json", "{}", #"{"trip_id": 5}"#, "[]", ""])
    func anUndecodable2xxBodyIsAnErrorValue(body: String) async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.script("GET", "/trips/t1", ScriptedAnswer(status: 200, body: body))
            let error = try #require(await #expect(throws: HyperTrackAPIError.self) { try await client.trip(id: "t1") })
            #expect(error.code == .undecodableResponse)
            #expect(error.status == 200)
            #expect(error.underlying != nil)
            #expect(await fake.requests("GET", "/trips/t1").count == 1)
        }
    }

    @Test func anUnreachableServerIsATransportErrorRetriedOnlyForSafeRequests() async throws {
        // A port that was just listening and is now closed: connections are refused. AsyncHTTPClient keeps
        // reconnecting until the request's deadline, hence the short timeout.
        let closedURL = try await FakeHyperTrack.withServer { fake in await fake.baseURL }
        let logs = LogCapture()
        let configuration = HyperTrackClient.Configuration(
            baseURL: closedURL,
            accountID: "acc",
            secretKey: "sk-transport-secret",
            timeout: .seconds(1),
            retryPolicy: fastRetries
        )
        let client = try HyperTrackClient(configuration: configuration, httpClient: .shared, logger: logs.logger())
        let error = try #require(await #expect(throws: HyperTrackAPIError.self) { try await client.trip(id: "t") })
        #expect(error.code == .transport)
        #expect(error.status == nil)
        #expect(error.underlying != nil)
        #expect(logs.entries.filter { $0.message == "HyperTrack request will be retried" }.count == 2)
        #expect(logs.entries.filter { $0.message == "HyperTrack request failed" }.count == 3)

        let create = try #require(
            await #expect(throws: HyperTrackAPIError.self) {
                try await client.createTrip(CreateTripRequest(deviceID: "D1"))
            }
        )
        #expect(create.code == .transport)
        #expect(logs.entries.filter { $0.message == "HyperTrack request failed" }.count == 4)
        #expect(!logs.text.contains("sk-transport-secret"))
    }

    @Test func badConfigurationIsRefused() throws {
        for url in ["", "not a url", "ftp://example.com", "http://", "http://h/x?q=1"] {
            let configuration = HyperTrackClient.Configuration(baseURL: url, accountID: "a", secretKey: "s")
            let error = #expect(throws: HyperTrackAPIError.self) {
                try HyperTrackClient(configuration: configuration, httpClient: .shared, logger: LogCapture().logger())
            }
            #expect(error?.code == .invalidConfiguration)
        }
        let noSecret = HyperTrackClient.Configuration(accountID: "a", secretKey: "")
        #expect(throws: HyperTrackAPIError.self) {
            try HyperTrackClient(configuration: noSecret, httpClient: .shared, logger: LogCapture().logger())
        }
    }
}
