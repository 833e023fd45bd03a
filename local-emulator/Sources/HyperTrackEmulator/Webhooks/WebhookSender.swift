import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// POSTs webhook attempts to the receiver, signed with `x-hypertrack-signature`.
struct WebhookSender: Sendable {
    let url: String?
    let key: SymmetricKey
    let timeout: Duration
    let logger: Logger

    init(configuration: HyperTrackEmulator.Configuration, logger: Logger) {
        self.url = configuration.webhookURL
        self.key = SymmetricKey(data: Array(configuration.signingKey.utf8))
        self.timeout = configuration.options.webhookTimeout
        self.logger = logger
    }

    /// `hex(HMAC-SHA256(body, key))`.
    static func signature(of body: [UInt8], key: SymmetricKey) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: key).map { byte in
            (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// Sends one attempt; returns the status code or the transport error (both `nil` when no URL is configured).
    func send(_ attempt: PendingAttempt) async -> (status: Int?, error: String?) {
        guard let url else { return (nil, nil) }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "x-hypertrack-signature", value: Self.signature(of: attempt.body, key: key))
        request.headers.add(name: "x-amz-sns-message-id", value: attempt.messageID)
        request.headers.add(name: "x-amz-sns-message-type", value: "Notification")
        request.headers.add(name: "User-Agent", value: "hypertrack-emulator")
        request.body = .bytes(ByteBuffer(bytes: attempt.body))
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(nanoseconds))
            _ = try? await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), nil)
        } catch {
            logger.debug(
                "webhook attempt failed",
                metadata: ["emulator.message_id": "\(attempt.messageID)", "error.type": "\(type(of: error))"])
            return (nil, String(describing: error))
        }
    }
}
