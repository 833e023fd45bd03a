import AsyncHTTPClient
import HyperTrackAPI

/// What the behaviour tests need from a HyperTrack server: where it is, the account's credentials, and a way to
/// make a device exist (devices are created by the SDK on phones, never through the REST API).
///
/// Two servers conform: the in-process fake (hand-written JSON from the API notes) and the project's HyperTrack
/// emulator (`local-emulator`), so the behaviour tests check the client against both.
protocol ServerUnderTest: Sendable {
    /// A short name for test output.
    var name: String { get }
    /// The base URL of the REST API.
    var baseURL: String { get async }
    /// The account id.
    var accountID: String { get }
    /// The secret key.
    var secretKey: String { get }
    /// Makes a device with this id, name and position known to the server.
    func seedDevice(id: String, name: String, latitude: Double, longitude: Double) async throws
    /// Lets a trip whose completion was requested finish (`processing_completion` → `completed`).
    func finishCompletion(tripID: String) async throws
}

extension FakeHyperTrack: ServerUnderTest {
    nonisolated var name: String { "in-process fake" }

    func seedDevice(id: String, name: String, latitude: Double, longitude: Double) async throws {
        self.addDevice(id, name: name, latitude: latitude, longitude: longitude)
    }

    func finishCompletion(tripID: String) async throws {
        self.finishCompletion(tripID)
    }
}

/// Runs `body` against every server under test, each with a fresh client.
func withEachServer(_ body: (any ServerUnderTest, HyperTrackClient) async throws -> Void) async throws {
    try await FakeHyperTrack.withServer { fake in
        try await body(fake, try await makeClient(for: fake))
    }
    try await EmulatorServer.withServer { emulator in
        try await body(emulator, try await makeClient(for: emulator))
    }
}

/// A client for a server under test, with fast retries and quick Nearby polling.
func makeClient(for server: any ServerUnderTest, secretKey: String? = nil) async throws -> HyperTrackClient {
    var configuration = HyperTrackClient.Configuration(
        baseURL: await server.baseURL,
        accountID: server.accountID,
        secretKey: secretKey ?? server.secretKey,
        timeout: .seconds(20),
        retryPolicy: fastRetries
    )
    configuration.nearbyPollInterval = .milliseconds(20)
    return try HyperTrackClient(configuration: configuration, httpClient: .shared, logger: LogCapture().logger())
}
