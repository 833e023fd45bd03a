import Foundation
import Functions
import HTTPTypes
import Hummingbird
import LocalStack
import Logging
import NIOCore
import NIOFoundationCompat
import ServiceLifecycle
import TriggerRuntime

/// What an SMS provider is to `ridesharing serve`: a webhook receiving its signed sign-in codes
/// (`AUTH_CODE_WEBHOOK_URL`), which checks each signature as a provider would and keeps the codes for the tests
/// to sign in with. So the deploy tests exercise the real sender of the real executable.
struct SMSInbox: Sendable {
    static let secret = "sms-deploy-tests"

    let outbox: CodeOutbox
    let port: Int

    /// The settings that point `serve` at this inbox.
    var environment: [String: String] {
        ["AUTH_CODE_WEBHOOK_URL": "http://127.0.0.1:\(self.port)/sms", "AUTH_CODE_WEBHOOK_SECRET": Self.secret]
    }

    /// The sign-in flow over `api` with codes from this inbox.
    func accounts(_ api: StackAPI) -> SignInFlow {
        let outbox = self.outbox
        return SignInFlow(
            send: { method, path, json, token in
                let reply = try await api.send(method, path, json: json, token: token)
                return (reply.status, reply.json)
            },
            codes: { phone in
                guard let message = outbox.latest(phone: phone) else {
                    throw ChildProcess.Failure(description: "the SMS inbox has no code for \(phone)")
                }
                return message.code
            }
        )
    }

    /// Runs `body` while the inbox listens on a free port.
    static func with<T: Sendable>(_ body: (SMSInbox) async throws -> T) async throws -> T {
        let outbox = CodeOutbox(logger: Stack.logger)
        return try await ServiceGroup.withRunning(
            logger: Stack.logger,
            notReady: ChildProcess.Failure(description: "the SMS inbox did not start")
        ) { ready in
            [Self.application(outbox: outbox) { port in ready(SMSInbox(outbox: outbox, port: port)) }]
        } _: { inbox in
            try await body(inbox)
        }
    }

    static func application(
        outbox: CodeOutbox,
        onPort: @escaping @Sendable (Int) -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
        router.post("sms") { request, _ -> HTTPResponse.Status in
            let body = Data(buffer: try await request.body.collect(upTo: 64 * 1024))
            let header = request.headers[HTTPField.Name("x-ridesharing-signature")!] ?? ""
            let timestamp = header.split(separator: ",").first.flatMap { Int($0.dropFirst("t=".count)) } ?? 0
            guard abs(Int(Date().timeIntervalSince1970) - timestamp) < 300,
                header == WebhookCodeDelivery.signature(body: body, timestamp: timestamp, secret: Self.secret)
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
            logger: Stack.logger
        )
    }
}
