import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

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

    /// What an attempt came to: the receiver's status code or the transport error (both `nil` when no URL is
    /// configured), and, for an answered attempt, the acknowledgement's time on the wire (``WireTiming``).
    struct Outcome: Sendable {
        var status: Int?
        var error: String?
        /// Milliseconds from the request's head written to the reply's end read, both on the connection's event
        /// loop; `nil` when the attempt was not answered.
        var wireMilliseconds: Double?
    }

    /// Sends one attempt.
    func send(_ attempt: PendingAttempt) async -> Outcome {
        guard let url else { return Outcome() }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "x-hypertrack-signature", value: Self.signature(of: attempt.body, key: key))
        headers.add(name: "x-amz-sns-message-id", value: attempt.messageID)
        headers.add(name: "x-amz-sns-message-type", value: "Notification")
        headers.add(name: "User-Agent", value: "hypertrack-emulator")
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        do {
            let request = try HTTPClient.Request(
                url: url,
                method: .POST,
                headers: headers,
                body: .byteBuffer(ByteBuffer(bytes: attempt.body))
            )
            let task = HTTPClient.shared.execute(
                request: request,
                delegate: WireTiming(),
                deadline: .now() + .nanoseconds(nanoseconds)
            )
            // The delegate API's future does not answer the task's cancellation as the async `execute` did: a step
            // cancelled (the emulator stopping) cancels its request rather than waiting for the deadline.
            let reply = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
            return Outcome(status: reply.status, wireMilliseconds: reply.milliseconds)
        } catch {
            logger.debug(
                "webhook attempt failed",
                metadata: ["emulator.message_id": "\(attempt.messageID)", "error.type": "\(type(of: error))"])
            return Outcome(error: String(describing: error))
        }
    }
}

/// Times an attempt on the wire: from its request's head written to its reply's end read, both on the connection's
/// event loop, so the time excludes the emulator's own wait for a thread of its task pool to resume the sender
/// (which the stepper's timing, from before the call to after it, includes).
///
/// **Why.** HyperTrack's sender (AWS SNS) runs on machines of its own; the emulator shares two cores with the API,
/// the worker and PostgreSQL, and its task pool runs the engine's steps and serves the worker's and the simulation's
/// calls. Through the ten-minute city the API timed 99.0-99.5% of its acknowledgements within 50 ms while the
/// stepper timed a p99 of 57-81 ms (58th session): this timing tells how much of that difference is the emulator's
/// resumption and how much the connection (the API's event loop reading the request and writing its reply, which
/// the API's own timing does not see).
final class WireTiming: HTTPClientResponseDelegate {
    struct Response: Sendable {
        var status: Int
        var milliseconds: Double
    }

    private struct Marks {
        var sent: NIODeadline?
        var status: Int?
    }

    private let marks = Mutex(Marks())

    func didSendRequestHead(task: HTTPClient.Task<Response>, _ head: HTTPRequestHead) {
        let now = NIODeadline.now()
        self.marks.withLock { $0.sent = now }
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.marks.withLock { $0.status = Int(head.status.code) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        let end = NIODeadline.now()
        let (sent, status) = self.marks.withLock { ($0.sent, $0.status) }
        // Both are set before a reply can end (the request's head goes out first, a reply's head comes before its
        // end): should either be missing, the attempt fails with why (logged, retried) rather than a made-up time.
        guard let sent, let status else { throw Unmarked(sent: sent != nil, answered: status != nil) }
        return Response(status: status, milliseconds: Double((end - sent).nanoseconds) / 1_000_000)
    }

    /// A reply that ended without the marks it is timed by; its text is the attempt's recorded error.
    struct Unmarked: Error, CustomStringConvertible {
        var sent: Bool
        var answered: Bool
        var description: String {
            "the wire timing's marks are missing (request head sent: \(sent), reply head read: \(answered))"
        }
    }
}
