import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HyperTrackAPI
import Logging
import NIOCore
import ServiceLifecycle
import TriggerRuntime

/// One request as the fake server received it.
struct RecordedRequest: Sendable {
    var method: String
    var path: String
    var query: [String: String]
    var headers: HTTPFields
    var body: [UInt8]

    /// The body parsed as JSON, if it is JSON.
    var json: JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: Data(self.body)) }
    func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { self.headers[$0] } }
}

/// An answer the test forces on the next matching request(s).
struct ScriptedAnswer: Sendable {
    var status: Int
    var headers: [(String, String)] = []
    var body: String = ""
}

/// An in-process stand-in for HyperTrack's REST API: the status codes and JSON shapes of the API notes, a small
/// in-memory state, every request recorded, and answers that tests can script (errors, 429, 503).
///
/// Its JSON is written by hand from the notes, never produced from the client's models, so a wrong field name in the
/// client cannot be mirrored here.
actor FakeHyperTrack {
    let accountID = "test-account"
    let secretKey = "test-secret-\(UUID().uuidString)"
    var baseURL = ""
    var requests: [RecordedRequest] = []
    var scripted: [(method: String, path: String, answer: ScriptedAnswer)] = []

    // State used by the routes (see FakeHyperTrack+Routes.swift).
    var trips: [String: JSONValue] = [:]
    var tripOrder: [String] = []
    var devices: [String: JSONValue] = [:]
    var deviceOrder: [String] = []
    var geofences: [String: JSONValue] = [:]
    var nearby: [String: (polls: Int, devices: [JSONValue])] = [:]
    var deletedDevices: Set<String> = []
    /// Items per list page.
    var pageSize = 2
    /// How list pages point at the next page.
    var pagination: PaginationStyle = .token
    /// How many polls of a Nearby request answer `pending` before `completed`.
    var nearbyPendingPolls = 1
    /// The devices Nearby finds, in the order the fake returns them.
    var nearbyDevices: [JSONValue] = []

    enum PaginationStyle: Sendable {
        case token
        case linksNext
    }

    /// Makes the next `count` requests with this method and path answer `answer`.
    func script(_ method: String, _ path: String, _ answer: ScriptedAnswer, count: Int = 1) {
        for _ in 0..<count { self.scripted.append((method, path, answer)) }
    }

    func set(pageSize: Int, pagination: PaginationStyle) {
        self.pageSize = pageSize
        self.pagination = pagination
    }

    func set(nearbyDevices: [JSONValue], pendingPolls: Int) {
        self.nearbyDevices = nearbyDevices
        self.nearbyPendingPolls = pendingPolls
    }

    func requests(_ method: String, _ path: String) -> [RecordedRequest] {
        self.requests.filter { $0.method == method && $0.path == path }
    }

    func respond(to request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        var path = request.uri.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let recorded = RecordedRequest(
            method: request.method.rawValue,
            path: path,
            query: query,
            headers: request.headers,
            body: Array(buffer: body)
        )
        self.requests.append(recorded)
        if let index = self.scripted.firstIndex(where: { $0.method == recorded.method && $0.path == path }) {
            let answer = self.scripted.remove(at: index).answer
            return Self.response(answer.status, text: answer.body, headers: answer.headers)
        }
        let expected = "Basic " + Data("\(self.accountID):\(self.secretKey)".utf8).base64EncodedString()
        guard recorded.header("authorization") == expected else {
            return Self.response(401, text: #"{"message": "Unauthorized"}"#)
        }
        return self.route(recorded)
    }

    static func response(_ status: Int, json: JSONValue) -> Response {
        let data = (try? JSONEncoder().encode(json)) ?? Data()
        return self.response(status, text: String(decoding: data, as: UTF8.self))
    }

    static func response(_ status: Int, text: String, headers: [(String, String)] = []) -> Response {
        var fields = HTTPFields()
        if !text.isEmpty { fields[.contentType] = "application/json" }
        if status >= 400 { fields[.contentLanguage] = "en-US" }
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    static func problem(_ status: Int, _ code: String, _ title: String, _ detail: String) -> Response {
        self.response(
            status,
            json: [
                "status": .number(Double(status)), "code": .string(code), "title": .string(title),
                "type": "about:blank", "detail": .string(detail),
            ]
        )
    }

    /// Runs the fake on 127.0.0.1 with an OS-chosen port for the duration of `body`.
    static func withServer<T: Sendable>(_ body: (FakeHyperTrack) async throws -> T) async throws -> T {
        let fake = FakeHyperTrack()
        let logger = Logger(label: "fake-hypertrack", factory: { _ in SwiftLogNoOpLogHandler() })
        return try await ServiceGroup.withRunning(logger: logger, notReady: FakeServerError.noPort) { ready in
            [
                Application(
                    responder: CallbackResponder<BasicRequestContext> { request, _ in
                        try await fake.respond(to: request)
                    },
                    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                    onServerRunning: { channel in ready(channel.localAddress?.port ?? 0) },
                    logger: logger
                )
            ]
        } _: { port in
            guard port > 0 else { throw FakeServerError.noPort }
            await fake.setBaseURL("http://127.0.0.1:\(port)")
            return try await body(fake)
        }
    }

    func setBaseURL(_ url: String) { self.baseURL = url }
}

enum FakeServerError: Error {
    case noPort
}
