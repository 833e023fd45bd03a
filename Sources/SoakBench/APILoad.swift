import BenchSupport
import AsyncHTTPClient
import Foundation
import HyperTrackAPI
import LocalStack
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// The soak's traffic: virtual users that each register a rider and a driver, then repeat one cycle of the apps'
/// calls until the shared request budget is spent. A cycle is eight requests: the rider reads `/v1/me` (auth),
/// books, reads the order and the order list, cancels (writes), HyperTrack posts a signed delivery of eight
/// location events for the driver's device (webhooks), an unknown token gets 401, and the driver reads offers.
/// Every 50 cycles a user registers a new rider, so order lists stay short and sign-ups are part of the mix.
struct APILoad: Sendable {
    let baseURL: String
    let webhookSecret: String
    let http: HTTPClient
    let counters: Counters
    /// Where sign-in codes are read (`serve`'s SMS webhook inbox); `nil`: the local stack's outbox route.
    let codes: SignInFlow.Codes?

    /// Requests sent, by outcome; `unexpected` are responses whose status was not the expected one.
    final class Counters: Sendable {
        let sent = Atomic<Int>(0)
        let unexpected = Atomic<Int>(0)
        let serverErrors = Atomic<Int>(0)
        let lastProblem = Mutex<String?>(nil)
    }

    /// Runs `users` virtual users until `budget` requests were sent; `onRequest` sees the running count.
    func run(users: Int, budget: Int, onRequest: @escaping @Sendable (Int) async -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for user in 0..<users {
                group.addTask { try await self.user(user, budget: budget, onRequest: onRequest) }
            }
            try await group.waitForAll()
        }
    }

    private func user(_ index: Int, budget: Int, onRequest: @escaping @Sendable (Int) async -> Void) async throws {
        let device = "soak-device-\(index)-\(UUID().uuidString.prefix(8))"
        let driver = try await self.token(
            role: "driver",
            ["name": "Driver \(index)", "device_id": device, "car": ["model": "Soak", "plate": "S-\(index)"]]
        )
        try await self.expect(.PUT, "/v1/drivers/me/availability", token: driver, body: ["available": true], 200)
        var rider = ""
        var cycle = 0
        while true {
            if cycle % 50 == 0 {
                rider = try await self.token(role: "rider", ["name": "Rider \(index)"])
            }
            cycle += 1
            let (rider, cycle) = (rider, cycle)
            let lat = 52.52 + Double(index % 10) * 0.001
            let lng = 13.40 + Double(cycle % 10) * 0.001
            let steps: [@Sendable () async throws -> Void] = [
                { try await self.expect(.GET, "/v1/me", token: rider, 200) },
                {
                    let order = try await self.send(
                        .POST, "/v1/orders", token: rider,
                        body: ["pickup": ["lat": lat, "lng": lng], "dropoff": ["lat": lat + 0.01, "lng": lng + 0.01]]
                    )
                    try self.check(order, 201, "POST /v1/orders")
                    guard let id = order.json?["id"] as? String else {
                        throw BenchError("POST /v1/orders answered without an id: \(order.text)")
                    }
                    try await self.expect(.GET, "/v1/orders/\(id)", token: rider, 200)
                    try await self.expect(.GET, "/v1/orders", token: rider, 200)
                    try await self.expect(.POST, "/v1/orders/\(id)/cancel", token: rider, body: ["reason": "soak"], 200)
                },
                { try await self.webhook(device: device, lat: lat, lng: lng, cycle: cycle) },
                { try await self.expect(.GET, "/v1/me", token: "rs_not_a_token", 401) },
                { try await self.expect(.GET, "/v1/offers", token: driver, 200) },
            ]
            for step in steps {
                guard self.counters.sent.load(ordering: .relaxed) < budget else { return }
                try await step()
            }
            await onRequest(self.counters.sent.load(ordering: .relaxed))
        }
    }

    /// Location events per webhook delivery: with the booking and the cancel, a cycle of eight requests makes ten
    /// deliveries for the worker (`dispatchOrder`, `updateOrderStatus`, eight `onTripWebhook`).
    static let eventsPerWebhook = 8

    /// A phone number of its own for every sign-up.
    private static func phone() -> String { "+49 160 \(Int.random(in: 1_000_000...9_999_999))" }

    private func webhook(device: String, lat: Double, lng: Double, cycle: Int) async throws {
        let now = Date()
        let events: [[String: Any]] = (0..<Self.eventsPerWebhook).map { step in
            let time = ISO8601DateFormatter().string(from: now.addingTimeInterval(Double(step)))
            return [
                "created_at": time, "recorded_at": time, "device_id": device, "type": "location", "version": "2.0.0",
                "data": [
                    "geometry": ["type": "Point", "coordinates": [lng + Double(step) * 0.0001, lat]],
                    "accuracy": 5, "speed": 8.5, "bearing": 90,
                ],
            ]
        }
        let body = try JSONSerialization.data(withJSONObject: events)
        let signature = HMACWebhookSignatureVerifier.signature(for: body, secret: self.webhookSecret)
        let response = try await self.send(
            .POST, "/v1/hypertrack/webhooks/\(self.webhookSecret)", rawBody: body,
            headers: ["x-hypertrack-signature": signature, "x-amz-sns-message-id": UUID().uuidString]
        )
        try self.check(response, 202, "POST /v1/hypertrack/webhooks")
    }

    /// Signs a new user in as an app does (a code, read from the local stack's outbox at
    /// `GET /local/auth/codes/{phone}`, traded for tokens) and completes the profile; returns the access token.
    /// Against `serve`, codes come from the SMS webhook inbox it sends them to (``codes``).
    private func token(role: String, _ profile: [String: Any]) async throws -> String {
        let phone = Self.phone()
        try self.check(try await self.send(.POST, "/v1/auth/code", body: ["phone": phone, "role": role]), 202, "POST /v1/auth/code")
        let code: String
        if let codes = self.codes {
            code = try await codes(phone)
        } else {
            let outbox = try await self.send(.GET, "/local/auth/codes/\(phone.filter(\.isNumber))")
            try self.check(outbox, 200, "GET /local/auth/codes")
            guard let text = outbox.json?["code"] as? String else {
                throw BenchError("the outbox answered without a code: \(outbox.text)")
            }
            code = text
        }
        let session = try await self.send(.POST, "/v1/auth/session", body: ["phone": phone, "code": code])
        try self.check(session, 201, "POST /v1/auth/session")
        guard let token = session.json?["access_token"] as? String else {
            throw BenchError("POST /v1/auth/session answered without a token: \(session.text)")
        }
        try await self.expect(.PUT, "/v1/me", token: token, body: profile, 200)
        return token
    }

    private func expect(
        _ method: HTTPMethod, _ path: String, token: String? = nil, body: [String: Any]? = nil, _ status: Int
    ) async throws {
        let response = try await self.send(method, path, token: token, body: body)
        try self.check(response, status, "\(method) \(path)")
    }

    /// Counts an unexpected status; a server error stops the soak (the API must never answer 5xx).
    private func check(_ response: Response, _ status: Int, _ what: String) throws {
        guard response.status != status else { return }
        self.counters.unexpected.add(1, ordering: .relaxed)
        self.counters.lastProblem.withLock { $0 = "\(what): \(response.status) \(response.text.prefix(300))" }
        if response.status >= 500 {
            self.counters.serverErrors.add(1, ordering: .relaxed)
            throw BenchError("\(what) answered \(response.status): \(response.text.prefix(300))")
        }
    }

    struct Response {
        var status: Int
        var body: Data
        var text: String { String(decoding: self.body, as: UTF8.self) }
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: self.body) as? [String: Any] }
    }

    private func send(
        _ method: HTTPMethod, _ path: String, token: String? = nil, body: [String: Any]? = nil, rawBody: Data? = nil,
        headers: [String: String] = [:]
    ) async throws -> Response {
        var request = HTTPClientRequest(url: self.baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let data = try rawBody ?? body.map({ try JSONSerialization.data(withJSONObject: $0) }) {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: data))
        }
        self.counters.sent.add(1, ordering: .relaxed)
        let response = try await self.http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 4 * 1024 * 1024)
        return Response(status: Int(response.status.code), body: Data(buffer: bytes))
    }
}
