import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// An HTTP answer with its body parsed when it is JSON.
struct APIResponse: @unchecked Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    var json: Any? { body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: Data(body)) }
    var object: [String: Any] { json as? [String: Any] ?? [:] }
    var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Calls the emulator over real HTTP with Basic auth.
struct APIClient: Sendable {
    /// The tests' client: no read timeout of its own, so each call's deadline is what bounds it. The shared client's
    /// 90 s read timeout cut a clock advance that was still sending its 300 webhooks under the full parallel suite
    /// (CI, 15th session: `HTTPClientError.readTimeout` after 137 s, although the advance's deadline is 300 s).
    static let http = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(timeout: .init(connect: .seconds(10), read: nil))
    )

    let baseURL: String
    var user = "emulator-account"
    var password = "emulator-secret"

    func call(
        _ method: HTTPMethod, _ path: String, json: String? = nil, auth: Bool = true,
        credentials: (String, String)? = nil, timeout: TimeAmount = .seconds(100)
    ) async throws -> APIResponse {
        var request = HTTPClientRequest(url: path.hasPrefix("http") ? path : baseURL + path)
        request.method = method
        if auth {
            let (user, password) = credentials ?? (self.user, self.password)
            request.headers.add(
                name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
        }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await Self.http.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 16 << 20)
        return APIResponse(status: Int(response.status.code), headers: response.headers, body: Array(body.readableBytesView))
    }

    func get(_ path: String) async throws -> APIResponse { try await call(.GET, path) }
    func post(_ path: String, _ json: String? = nil) async throws -> APIResponse { try await call(.POST, path, json: json) }
    func patch(_ path: String, _ json: String) async throws -> APIResponse { try await call(.PATCH, path, json: json) }
    func delete(_ path: String) async throws -> APIResponse { try await call(.DELETE, path) }

    /// `POST /_emulator/clock/advance`.
    @discardableResult
    func advance(_ seconds: Double) async throws -> APIResponse {
        // A clock advance answers once every webhook it caused was sent; with devices reporting periodically, ten
        // emulated minutes took over 30 s under the full parallel suite on 2 cores (CI), and 300 one-second steps
        // (300 deliveries, one after another) once took over 100 s: the deadline is wider than a request's.
        try await call(.POST, "/_emulator/clock/advance", json: #"{"seconds": \#(seconds)}"#, timeout: .seconds(300))
    }

    /// Creates a trip for `device` to `[lng, lat]` and returns its JSON.
    func createTrip(device: String, to destination: (Double, Double)?, metadata: String = "null") async throws
        -> [String: Any]
    {
        let destinationJSON = destination.map {
            #","destination":{"geometry":{"type":"Point","coordinates":[\#($0.0),\#($0.1)]}}"#
        } ?? ""
        let response = try await post("/trips", #"{"device_id":"\#(device)","metadata":\#(metadata)\#(destinationJSON)}"#)
        precondition(response.status == 201, "trip creation failed: \(response.status) \(response.text)")
        return response.object
    }
}
