import AsyncHTTPClient
import Foundation
import HyperTrackAPI
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A small JSON client of the stack's HTTP API, as the rider and driver apps use it.
public struct StackAPI: Sendable {
    /// The API's base URL.
    public let baseURL: String
    let httpClient: HTTPClient

    /// Creates a client.
    /// - Parameters:
    ///   - baseURL: E.g. `http://127.0.0.1:8080`.
    ///   - httpClient: The HTTP client.
    public init(baseURL: String, httpClient: HTTPClient = .shared) {
        self.baseURL = baseURL
        self.httpClient = httpClient
    }

    /// A reply: status, JSON body (`.null` when empty) and headers.
    public struct Reply: Sendable {
        public var status: Int
        public var json: JSONValue
        public var headers: [(String, String)]
    }

    /// Sends a request; `json` is the body, `token` the bearer token.
    @discardableResult
    public func send(
        _ method: HTTPMethod,
        _ path: String,
        json: JSONValue? = nil,
        token: String? = nil,
        headers: [(String, String)] = [],
        rawBody: Data? = nil,
        timeout: TimeAmount = .seconds(30)
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: self.baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body = try rawBody ?? json.map({ try JSONEncoder().encode($0) }) {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await self.httpClient.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 8 << 20)
        let json = body.readableBytes == 0 ? JSONValue.null : try JSONDecoder().decode(JSONValue.self, from: body)
        return Reply(
            status: Int(response.status.code), json: json, headers: response.headers.map { ($0.name, $0.value) }
        )
    }

    /// Sends a request and insists on `expected`; throws with the reply otherwise.
    @discardableResult
    public func expect(
        _ expected: Int,
        _ method: HTTPMethod,
        _ path: String,
        json: JSONValue? = nil,
        token: String? = nil
    ) async throws -> JSONValue {
        let reply = try await self.send(method, path, json: json, token: token)
        guard reply.status == expected else {
            throw LocalStackError.unexpectedReply("\(method) \(path): expected \(expected), got \(reply.status) \(reply.json)")
        }
        return reply.json
    }

    /// Posts a signed HyperTrack webhook delivery of `events` (what HyperTrack sends when a phone reports) to the
    /// stack's webhook URL, which ends with the same secret.
    public func webhook(_ events: [JSONValue], secret: String, messageID: String = UUID().uuidString) async throws {
        let body = try JSONEncoder().encode(JSONValue.array(events))
        let reply = try await self.send(
            .POST,
            "/v1/hypertrack/webhooks/\(secret)",
            headers: [
                ("x-hypertrack-signature", HMACWebhookSignatureVerifier.signature(for: body, secret: secret)),
                ("x-amz-sns-message-id", messageID),
            ],
            rawBody: body
        )
        guard (200..<300).contains(reply.status) else {
            throw LocalStackError.unexpectedReply("webhook: \(reply.status) \(reply.json)")
        }
    }
}
