import Foundation
import Functions
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat
import ServiceLifecycle
import TriggerRuntime

/// What an SMS provider is to `ridesharing serve`: a webhook receiving its signed sign-in codes
/// (`AUTH_CODE_WEBHOOK_URL`) that checks each signature and its timestamp as a provider would, and keeps the codes
/// so a test or a benchmark can sign in against `serve`, through the real sender of the real executable.
public struct SMSWebhookInbox: Sendable {
    /// The codes received.
    public let outbox: CodeOutbox
    /// Where it listens on 127.0.0.1.
    public let port: Int
    /// The signing secret `serve` is given.
    public let secret: String

    /// The settings that point `serve` at this inbox.
    public var environment: [String: String] {
        ["AUTH_CODE_WEBHOOK_URL": "http://127.0.0.1:\(self.port)/sms", "AUTH_CODE_WEBHOOK_SECRET": self.secret]
    }

    /// The last code received for a phone (for ``SignInFlow``'s `codes`).
    public var codes: SignInFlow.Codes {
        let outbox = self.outbox
        return { phone in
            guard let message = outbox.latest(phone: phone) else {
                throw LocalStackError.unexpectedReply("the SMS inbox has no code for \(phone)")
            }
            return message.code
        }
    }

    /// The sign-in flow over `api` with codes from this inbox.
    public func accounts(_ api: StackAPI) -> SignInFlow {
        SignInFlow(
            send: { method, path, json, token in
                let reply = try await api.send(method, path, json: json, token: token)
                return (reply.status, reply.json)
            },
            codes: self.codes
        )
    }

    /// Runs `body` while an inbox listens on a free port of 127.0.0.1.
    /// - Parameters:
    ///   - secret: The signing secret.
    ///   - logger: The inbox's logger.
    ///   - body: Runs while it listens.
    public static func with<T: Sendable>(
        secret: String = "sms-inbox-secret",
        logger: Logger,
        _ body: (SMSWebhookInbox) async throws -> T
    ) async throws -> T {
        let outbox = CodeOutbox(logger: logger)
        return try await ServiceGroup.withRunning(
            logger: logger,
            notReady: LocalStackError.apiDidNotStart("the SMS inbox did not start")
        ) { ready in
            [
                Self.application(outbox: outbox, secret: secret, logger: logger) { port in
                    ready(SMSWebhookInbox(outbox: outbox, port: port, secret: secret))
                }
            ]
        } _: { inbox in
            try await body(inbox)
        }
    }

    static func application(
        outbox: CodeOutbox,
        secret: String,
        logger: Logger,
        onPort: @escaping @Sendable (Int) -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
        router.post("sms") { request, _ -> HTTPResponse.Status in
            let body = Data(buffer: try await request.body.collect(upTo: 64 * 1024))
            let header = HTTPField.Name("x-ridesharing-signature").flatMap { request.headers[$0] } ?? ""
            let timestamp = header.split(separator: ",").first.flatMap { Int($0.dropFirst("t=".count)) } ?? 0
            guard abs(Int(Date().timeIntervalSince1970) - timestamp) < 300,
                header == WebhookCodeDelivery.signature(body: body, timestamp: timestamp, secret: secret)
            else { return .unauthorized }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            try await outbox.deliver(try decoder.decode(CodeMessage.self, from: body))
            return .noContent
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in onPort(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }
}
