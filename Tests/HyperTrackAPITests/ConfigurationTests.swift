import AsyncHTTPClient
import Foundation
import HyperTrackAPI
import Logging
import Testing

@Suite("Configuration, secrets and logging")
struct ConfigurationTests {
    @Test func theSecretIsNeverShown() throws {
        let secret = "sk_live_\(UUID().uuidString)"
        let configuration = HyperTrackClient.Configuration(accountID: "acc", secretKey: secret)
        let client = try HyperTrackClient(configuration: configuration, httpClient: .shared, logger: LogCapture().logger())
        var dumps = ""
        dump(configuration, to: &dumps)
        dump(client, to: &dumps)
        let texts = ["\(configuration)", String(reflecting: configuration), "\(client)", String(reflecting: client), dumps]
        for text in texts {
            #expect(!text.contains(secret))
            #expect(!text.contains(Data("acc:\(secret)".utf8).base64EncodedString()))
        }
        #expect("\(configuration)".contains("<redacted>"))
    }

    @Test func logsOneLinePerRequestWithoutBodiesOrSecretsAtInfo() async throws {
        try await FakeHyperTrack.withServer { fake in
            let logs = LogCapture()
            let configuration = HyperTrackClient.Configuration(
                baseURL: await fake.baseURL,
                accountID: fake.accountID,
                secretKey: fake.secretKey,
                retryPolicy: fastRetries
            )
            let client = try HyperTrackClient(configuration: configuration, httpClient: .shared, logger: logs.logger(level: .info))
            let trip = try await client.createTrip(CreateTripRequest(deviceID: "D1", metadata: ["rider_phone": "+15550100"]))
            await #expect(throws: HyperTrackAPIError.self) { try await client.trip(id: "missing") }

            let lines = logs.entries
            #expect(lines.count == 2)
            #expect(lines.allSatisfy { $0.level == .info && $0.message == "HyperTrack request" })
            #expect(lines[0].metadata["http.method"] == "POST")
            #expect(lines[0].metadata["http.path"] == "/trips")
            #expect(lines[0].metadata["http.status"] == "201")
            #expect(lines[0].metadata["duration_ms"] != nil)
            #expect(lines[1].metadata["http.status"] == "404")
            #expect(!logs.text.contains("+15550100"))
            #expect(!logs.text.contains(trip.views?.shareURL ?? "-"))
            #expect(!logs.text.contains(fake.secretKey))

            // At trace level, bodies are logged (still never the credentials).
            let traces = LogCapture()
            let traced = try HyperTrackClient(configuration: configuration, httpClient: .shared, logger: traces.logger(level: .trace))
            _ = try await traced.createTrip(CreateTripRequest(deviceID: "D1", metadata: ["rider_phone": "+15550100"]))
            #expect(traces.entries.contains { $0.level == .trace && "\($0.metadata)".contains("+15550100") })
            #expect(!traces.text.contains(fake.secretKey))
        }
    }

    @Test func aBaseURLWithAPathPrefixIsKept() async throws {
        try await FakeHyperTrack.withServer { fake in
            let (client, _) = try await fake.client { $0.baseURL += "/proxy/" }
            await #expect(throws: HyperTrackAPIError.self) { try await client.trip(id: "t1") }
            #expect(await fake.requests.last?.path == "/proxy/trips/t1")
        }
    }
}
