import BackendServer
import EmbeddedPostgres
import Foundation
import Functions
import HummingbirdTesting
import HyperTrackAPI
import LocalStack
import Logging
import NIOHTTP1
import PostgresNIO
import Prometheus
import TriggerRuntime

/// The whole backend on a fresh database: migrations and capture triggers (before the server starts), the trigger
/// runtime (a worker) with the backend's functions on `tracking`, and the API, tested through HummingbirdTesting's
/// router client (no socket).
struct RideHarness: Sendable {
    let client: PostgresClient
    let api: APIClient
    let secret: String
    /// Where webhooks are posted: the plain route (HMAC only), or the local stack's, which ends with its secret.
    var webhookPath = "/v1/hypertrack/webhooks"

    /// The port of the API when the harness serves real HTTP on loopback (`live`), for clients that stream.
    var port: Int?

    /// Dispatch's clocks in the ride tests, in seconds: an offer's lifetime (a round's length), how late after it an
    /// accept still wins, the booking window and the age past which a position does not count. Longer than the
    /// defaults (20 s, 10 s, 5 min, 2 min) and than any
    /// test's time limit: the database's real `now()` runs on while a loaded suite crawls (a step that takes 0.15 s
    /// alone once took over 100 s; in a CI run where `DispatchTests` took 149 s a 20 s round fell due on its own
    /// between two steps of the decline test). A test of expiry moves the clock (`DispatchTests.fastForward`).
    static let offerTTL = 1200
    static let acceptGrace = 600
    static let window = 7200
    static let maxPositionAge = 3600

    /// The backend's defaults with the clocks above.
    static var configuration: Backend.Configuration {
        var configuration = Backend.Configuration(webhook: .init(secret: "whsec-test"))
        configuration.dispatch.offerTTL = .seconds(Self.offerTTL)
        configuration.dispatch.acceptGrace = .seconds(Self.acceptGrace)
        configuration.dispatch.window = .seconds(Self.window)
        configuration.dispatch.maxPositionAge = .seconds(Self.maxPositionAge)
        return configuration
    }

    static func with<T: Sendable>(
        tracking: some TripTracking,
        configuration: Backend.Configuration = RideHarness.configuration,
        live: Bool = false,
        _ body: @escaping @Sendable (RideHarness) async throws -> T
    ) async throws -> T {
        try await TestDatabase.shared.withDatabase(logger: BackendHarness.logger) { client, _ in
            let composition = BackendHarness.composition(.all, backend: configuration, client: client)
            let application = try composition.application(
                tracking: tracking, metrics: PrometheusCollectorRegistry(), prepare: true
            )
            return try await application.test(live ? .live : .router) { testClient in
                try await body(
                    RideHarness(
                        client: client,
                        api: APIClient(client: testClient),
                        secret: configuration.webhook.secret ?? "",
                        port: testClient.port
                    )
                )
            }
        }
    }

    /// Posts a signed webhook delivery of `events`; returns the reply.
    @discardableResult
    func webhook(_ events: [JSONValue], messageID: String = UUID().uuidString) async throws -> APIClient.Reply {
        let body = try JSONEncoder().encode(JSONValue.array(events))
        return try await self.api.send(
            .POST,
            self.webhookPath,
            headers: [
                ("x-hypertrack-signature", HMACWebhookSignatureVerifier.signature(for: body, secret: self.secret)),
                ("x-amz-sns-message-id", messageID),
            ],
            rawBody: body
        )
    }

    /// Waits until the worker has applied every webhook delivery received so far (``ApplyWebhookDelivery``: the
    /// endpoint's 202 means stored as received).
    func webhooksApplied() async throws {
        try await self.eventually("the webhook deliveries applied") {
            try await DispatchTests.int(self, "SELECT count(*)::int FROM webhook_receipts") == 0
        }
    }

    /// Polls `condition` until it holds, for state the worker changes in the database (there is no event to await).
    /// The deadline is generous: under the full parallel suite on 2 cores a worker that drains a few hundred
    /// location events in seconds alone took over a minute (seen once in TripFlowTests).
    func eventually(
        _ what: String,
        timeout: Duration = .seconds(150),
        _ condition: @Sendable () async throws -> Bool
    ) async throws {
        try await Self.eventually(what, timeout: timeout, condition)
    }

    /// Polls `condition` until it holds, for state changed in the database by something the test does not await.
    static func eventually(
        _ what: String,
        timeout: Duration = .seconds(150),
        _ condition: @Sendable () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw TimedOut(what: what)
    }

    struct TimedOut: Error, CustomStringConvertible {
        var what: String
        var description: String { "timed out waiting for: \(self.what)" }
    }

    /// The order as its owner sees it.
    func order(_ id: String, token: String) async throws -> JSONValue {
        try await self.api.send(.GET, "/v1/orders/\(id)", token: token).json
    }

    static func tripEvent(_ value: String, trip: Trip, summary: JSONValue? = nil) -> JSONValue {
        var data: [String: JSONValue] = [
            "value": .string(value), "trip_id": .string(trip.tripID), "trip_metadata": .object(trip.metadata ?? [:]),
        ]
        if let summary { data["summary"] = summary }
        return [
            "created_at": "2026-11-21T19:00:00.000000Z", "device_id": .string(trip.deviceID), "type": "trip",
            "data": .object(data), "version": "2.0.0",
        ]
    }

    /// The real time as HyperTrack writes it: dispatch only counts positions younger than two minutes.
    static func nowText() -> String { ISO8601DateFormatter().string(from: Date()) }

    static func locationEvent(device: String, lat: Double, lng: Double, at time: String) -> JSONValue {
        [
            "created_at": .string(time), "recorded_at": .string(time), "device_id": .string(device), "type": "location",
            "data": ["geometry": ["type": "Point", "coordinates": [.number(lng), .number(lat)]], "accuracy": 5],
            "version": "2.0.0",
        ]
    }
}
