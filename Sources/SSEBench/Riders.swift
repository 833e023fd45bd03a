import AsyncHTTPClient
import BenchSupport
import Foundation
import LocalStack
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A rider of the benchmark: signed in through the API's code flow, with the order they have open (if any).
struct Rider: Sendable {
    var index: Int
    var userID: String
    var token: String
    var openOrder: String?
}

/// The benchmark's calls to the API over AsyncHTTPClient: sign-in, booking, cancelling.
struct RiderClient: Sendable {
    let baseURL: String
    let http: HTTPClient
    /// Signs riders in through the API's code flow, with codes from the SMS webhook inbox `serve` posts to.
    let accounts: SignInFlow

    /// `method path` with a JSON body; the status and the decoded JSON object (empty when there is none).
    func send(
        _ method: HTTPMethod,
        _ path: String,
        json: [String: Any]? = nil,
        token: String? = nil
    ) async throws -> (status: Int, body: [String: Any]) {
        var request = HTTPClientRequest(url: self.baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await self.http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        let object: [String: Any]
        if bytes.readableBytes == 0 {
            object = [:]
        } else {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any] else {
                throw BenchError("\(method) \(path): the reply is not a JSON object")
            }
            object = parsed
        }
        return (Int(response.status.code), object)
    }

    /// `send`, requiring `status`.
    @discardableResult
    func expect(
        _ status: Int,
        _ method: HTTPMethod,
        _ path: String,
        json: [String: Any]? = nil,
        token: String? = nil
    ) async throws -> [String: Any] {
        let reply = try await self.send(method, path, json: json, token: token)
        guard reply.status == status else {
            throw BenchError("\(method) \(path): expected \(status), got \(reply.status) \(reply.body)")
        }
        return reply.body
    }

    /// Signs rider `index` in (a code to a phone of its own, traded for tokens, the profile completed) and books a
    /// first ride.
    func signUp(_ index: Int) async throws -> Rider {
        let phone = "+4915" + String(format: "%09d", 100_000_000 + index)
        let session = try await self.accounts.rider("Rider \(index)", phone: phone)
        var rider = Rider(index: index, userID: session.userID, token: session.accessToken, openOrder: nil)
        rider.openOrder = try await self.book(rider)
        return rider
    }

    /// Books a ride around Alexanderplatz; its id.
    func book(_ rider: Rider) async throws -> String {
        let offset = Double(rider.index % 100) * 0.0001
        let order = try await self.expect(
            201,
            .POST,
            "/v1/orders",
            json: [
                "pickup": ["lat": 52.5219 + offset, "lng": 13.4132, "address": "Alexanderplatz"],
                "dropoff": ["lat": 52.5163, "lng": 13.3777 + offset, "address": "Brandenburger Tor"],
            ],
            token: rider.token
        )
        guard let id = order["id"] as? String else { throw BenchError("the booking's reply has no id: \(order)") }
        return id.lowercased()
    }

    /// Cancels the rider's open order.
    func cancel(_ order: String, of rider: Rider) async throws {
        try await self.expect(
            200,
            .POST,
            "/v1/orders/\(order)/cancel",
            json: ["reason": "sse-bench"],
            token: rider.token
        )
    }
}
