import AsyncHTTPClient
import Foundation
import Logging

/// A typed async client for HyperTrack's v3 REST API: trips, devices, Nearby and account geofences.
///
/// The client borrows an `HTTPClient` (its owner shuts it down) and logs one line per request to the `Logger` it is
/// given. Requests that are safe to repeat are retried as ``RetryPolicy`` says; creating a trip never is.
///
/// ```swift
/// try await HTTPClient.withHTTPClient { http in
///     let configuration = HyperTrackClient.Configuration(accountID: accountID, secretKey: secretKey)
///     let client = try HyperTrackClient(configuration: configuration, httpClient: http, logger: logger)
///     let trip = try await client.createTrip(CreateTripRequest(deviceID: "D1", metadata: ["order_id": "42"]))
///     for try await trip in client.trips(status: .active).items { print(trip.tripID) }
/// }
/// ```
public struct HyperTrackClient: Sendable, CustomStringConvertible, CustomReflectable {
    /// The configuration the client was created with.
    public let configuration: Configuration
    let httpClient: HTTPClient
    let logger: Logger
    let base: URLComponents
    let authorization: String

    /// Creates a client.
    /// - Parameters:
    ///   - configuration: Base URL, credentials, timeouts, retries.
    ///   - httpClient: The HTTP client to send requests with; the caller keeps ownership.
    ///   - logger: Where request lines go.
    /// - Throws: ``HyperTrackAPIError/Code/invalidConfiguration`` for a base URL that is not http(s) or empty
    ///   credentials.
    public init(configuration: Configuration, httpClient: HTTPClient, logger: Logger) throws {
        guard var base = URLComponents(string: configuration.baseURL),
            let scheme = base.scheme?.lowercased(), scheme == "http" || scheme == "https",
            base.host?.isEmpty == false, base.query == nil, base.fragment == nil
        else {
            throw HyperTrackAPIError(code: .invalidConfiguration, reason: "base URL is not an http(s) URL")
        }
        guard !configuration.accountID.isEmpty, !configuration.secretKey.isEmpty else {
            throw HyperTrackAPIError(code: .invalidConfiguration, reason: "account id and secret key are required")
        }
        while base.path.hasSuffix("/") { base.path.removeLast() }
        self.configuration = configuration
        self.httpClient = httpClient
        self.logger = logger
        self.base = base
        let credentials = Data("\(configuration.accountID):\(configuration.secretKey)".utf8).base64EncodedString()
        self.authorization = "Basic \(credentials)"
    }

    public var description: String {
        "HyperTrackClient(baseURL: \(self.configuration.baseURL), accountID: \(self.configuration.accountID))"
    }

    public var customMirror: Mirror { Mirror(self, children: ["configuration": self.configuration]) }
}
