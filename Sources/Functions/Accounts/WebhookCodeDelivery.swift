import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Sends codes to an SMS provider's webhook (or a small adapter in front of one): `POST` of the ``CodeMessage`` as
/// JSON, signed so the receiver can tell it came from this backend:
/// `x-ridesharing-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (the timestamp in the
/// signed text lets the receiver refuse replays). Any status but 2xx, or no answer within 10 s, is a failure the
/// API reports as 502: the caller may ask again (it counts against the phone's hourly limit).
public struct WebhookCodeDelivery: CodeDelivery {
    /// The provider's URL.
    public var url: String
    /// The signing secret shared with the provider.
    var secret: String
    let httpClient: HTTPClient

    /// Creates the sender.
    /// - Parameters:
    ///   - url: Where codes are posted.
    ///   - secret: The HMAC key of `x-ridesharing-signature`.
    ///   - httpClient: The client to post with.
    public init(url: String, secret: String, httpClient: HTTPClient = .shared) {
        self.url = url
        self.secret = secret
        self.httpClient = httpClient
    }

    /// The signature header's value for `body` sent at `timestamp`.
    public static func signature(body: Data, timestamp: Int, secret: String) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(timestamp),v1=\(Tokens.hex(mac))"
    }

    public func deliver(_ message: CodeMessage) async throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let body = try encoder.encode(message)
        var request = HTTPClientRequest(url: self.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(
            name: "x-ridesharing-signature",
            value: Self.signature(body: body, timestamp: Int(Date().timeIntervalSince1970), secret: self.secret)
        )
        request.body = .bytes(ByteBuffer(data: body))
        let response = try await self.httpClient.execute(request, timeout: .seconds(10))
        _ = try? await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw FunctionsError.codeDeliveryFailed("the SMS webhook answered \(response.status.code)")
        }
    }
}
