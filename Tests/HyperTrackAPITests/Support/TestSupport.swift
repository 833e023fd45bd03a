import AsyncHTTPClient
import Foundation
import HyperTrackAPI
import Logging
import Synchronization

/// Log lines captured from the client, to check what it logs (and that no secret is ever in it).
final class LogCapture: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let storage = Mutex<[Entry]>([])

    var entries: [Entry] { self.storage.withLock { $0 } }

    /// Every line with its metadata, as one text.
    var text: String {
        self.entries.map { "\($0.level) \($0.message) \($0.metadata)" }.joined(separator: "\n")
    }

    func append(_ entry: Entry) { self.storage.withLock { $0.append(entry) } }

    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "hypertrack-test") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { self.metadata[key] }
            set { self.metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            self.capture.append(
                Entry(level: event.level, message: "\(event.message)", metadata: self.metadata.merging(event.metadata ?? [:]) { $1 })
            )
        }
    }
}

/// Retries that do not make tests slow.
let fastRetries = RetryPolicy(
    maxAttempts: 3,
    initialBackoff: .milliseconds(10),
    maxBackoff: .milliseconds(50),
    jitter: 0,
    maxRetryAfter: .seconds(5)
)

/// The server a test talks to. Wire-level tests inspect the fake's recorded requests; behaviour tests only use the
/// base URL and credentials, so they can run against the HyperTrack emulator by giving it the same seed calls.
extension FakeHyperTrack {
    /// A client for this server, with captured logs.
    func client(
        retryPolicy: RetryPolicy = fastRetries,
        secretKey: String? = nil,
        configure: (inout HyperTrackClient.Configuration) -> Void = { _ in }
    ) throws -> (HyperTrackClient, LogCapture) {
        var configuration = HyperTrackClient.Configuration(
            baseURL: self.baseURL,
            accountID: self.accountID,
            secretKey: secretKey ?? self.secretKey,
            timeout: .seconds(20),
            retryPolicy: retryPolicy
        )
        configuration.nearbyPollInterval = .milliseconds(20)
        configure(&configuration)
        let logs = LogCapture()
        return (try HyperTrackClient(configuration: configuration, httpClient: .shared, logger: logs.logger()), logs)
    }
}

/// Runs `body` against a fresh fake HyperTrack on 127.0.0.1.
func withHyperTrack(_ body: (FakeHyperTrack, HyperTrackClient, LogCapture) async throws -> Void) async throws {
    try await FakeHyperTrack.withServer { fake in
        let (client, logs) = try await fake.client()
        try await body(fake, client, logs)
    }
}

/// Decodes JSON text with the client's decoder.
func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
    try HyperTrackJSON.makeDecoder().decode(type, from: Data(json.utf8))
}
