import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import HyperTrackAPI
import LocalStack
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// The API tests' JSON client, in the shape the apps use (a bearer token, JSON bodies, problem replies). Requests go
/// through HummingbirdTesting's client to the application (no socket with `.router`), or, for tests of the local
/// stack where the emulator posts webhooks to a listening API, through the stack's own client.
struct APIClient: Sendable {
    private enum Transport: Sendable {
        case application(any TestClientProtocol)
        case stack(StackAPI)
    }
    private let transport: Transport

    /// A client of the application under HummingbirdTesting (`app.test(.router) { client in … }`).
    init(client: any TestClientProtocol) {
        self.transport = .application(client)
    }

    /// A client of a running local stack's API at `baseURL`.
    init(stack baseURL: String) {
        self.transport = .stack(StackAPI(baseURL: baseURL))
    }

    /// The stack's base URL (`http://127.0.0.1:PORT`) for a client of a running stack; `nil` under HummingbirdTesting.
    var baseURL: String? {
        if case .stack(let stack) = self.transport { return stack.baseURL }
        return nil
    }

    /// A reply: status, JSON body (`.null` when empty) and headers.
    struct Reply: Sendable {
        var status: Int
        var json: JSONValue
        var headers: [(String, String)]
    }

    /// Sends a request; `json` is the body, `token` the bearer token.
    @discardableResult
    func send(
        _ method: NIOHTTP1.HTTPMethod,
        _ path: String,
        json: JSONValue? = nil,
        token: String? = nil,
        headers: [(String, String)] = [],
        rawBody: Data? = nil
    ) async throws -> Reply {
        let client: any TestClientProtocol
        switch self.transport {
        case .application(let application):
            client = application
        case .stack(let stack):
            let reply = try await stack.send(method, path, json: json, token: token, headers: headers, rawBody: rawBody)
            return Reply(status: reply.status, json: reply.json, headers: reply.headers)
        }
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { throw APIClientError.invalidHeader(name) }
            fields.append(HTTPField(name: field, value: value))
        }
        let body = try rawBody ?? json.map { try JSONEncoder().encode($0) }
        if body != nil { fields[.contentType] = "application/json" }
        let response = try await client.executeRequest(
            uri: path,
            method: HTTPRequest.Method(method.rawValue) ?? .get,
            headers: fields,
            body: body.map { ByteBuffer(data: $0) }
        )
        // A JSON reply is decoded (and must be JSON); a page, a script or an event stream is kept as text.
        let isJSON = response.headers[.contentType]?.contains("json") ?? true
        let reply =
            response.body.readableBytes == 0
            ? JSONValue.null
            : isJSON
                ? try JSONDecoder().decode(JSONValue.self, from: response.body) : .string(String(buffer: response.body))
        return Reply(
            status: response.status.code,
            json: reply,
            headers: response.headers.map { ($0.name.canonicalName, $0.value) }
        )
    }

    /// Sends a request to the application and returns the reply as text with its headers (HTML pages, streams
    /// that end).
    func text(
        _ path: String,
        method: HTTPRequest.Method = .get,
        token: String? = nil
    ) async throws -> (status: Int, body: String, headers: HTTPFields) {
        guard case .application(let client) = self.transport else { throw APIClientError.invalidHeader("text: stack") }
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        let response = try await client.executeRequest(uri: path, method: method, headers: fields, body: nil)
        return (response.status.code, String(buffer: response.body), response.headers)
    }

    /// GETs `path` from the application and returns the body as bytes, for replies that are not JSON (the trip
    /// map's SVG).
    func raw(_ path: String, token: String?) async throws -> (status: Int, body: Data, contentType: String?) {
        guard case .application(let client) = self.transport else {
            guard case .stack(let stack) = self.transport else { throw APIClientError.invalidHeader("raw") }
            var request = HTTPClientRequest(url: stack.baseURL + path)
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 8 << 20)
            return (Int(response.status.code), Data(buffer: body), response.headers.first(name: "Content-Type"))
        }
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        let response = try await client.executeRequest(uri: path, method: .get, headers: fields, body: nil)
        return (response.status.code, Data(buffer: response.body), response.headers[.contentType])
    }
}
