import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TriggerRuntime

/// One webhook POST as the receiver saw it.
struct ReceivedWebhook: Sendable {
    var body: [UInt8]
    var signature: String?
    var messageID: String?
    var contentType: String?
    /// The status the receiver answered.
    var answered: Int

    /// The parsed events (the body is always a JSON array).
    var events: [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]] ?? []
    }
}

/// Scripted answers: the next statuses to answer with, then 200 forever.
actor ReceiverScript {
    private var statuses: [Int] = []
    /// Requests being answered now, and the most seen at once.
    private(set) var inFlight = 0
    private(set) var mostInFlight = 0
    /// With a gate, each request waits until this many are in flight (or the gate's deadline passes).
    private var gate: (count: Int, waiters: [CheckedContinuation<Void, Never>])?

    func answer(next statuses: [Int]) { self.statuses += statuses }

    /// How long the receiver takes before it answers each request (a slow receiver, for the sender's timings).
    private(set) var answerDelay: Duration = .zero

    func answer(after delay: Duration) { self.answerDelay = delay }

    func nextStatus() -> Int { statuses.isEmpty ? 200 : statuses.removeFirst() }

    /// Holds each request until `count` are in flight at once, then lets them all go.
    func hold(untilInFlight count: Int) { self.gate = (count, []) }

    func arrived() async {
        self.inFlight += 1
        self.mostInFlight = max(self.mostInFlight, self.inFlight)
        guard var gate = self.gate else { return }
        if self.inFlight >= gate.count {
            for waiter in gate.waiters { waiter.resume() }
            gate.waiters = []
            self.gate = gate
            return
        }
        await withCheckedContinuation { continuation in
            gate.waiters.append(continuation)
            self.gate = gate
        }
    }

    func left() { self.inFlight -= 1 }
}

/// A small Hummingbird server on 127.0.0.1:0 that collects webhooks into an `AsyncStream`.
struct WebhookReceiver: Sendable {
    let script = ReceiverScript()
    let stream: AsyncStream<ReceivedWebhook>
    let continuation: AsyncStream<ReceivedWebhook>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: ReceivedWebhook.self)
    }

    /// Runs the receiver for the duration of `body`, passing its webhook URL.
    func withRunning<T: Sendable>(_ body: (String) async throws -> T) async throws -> T {
        let router = Router()
        let script = self.script
        let continuation = self.continuation
        router.post("/webhooks") { request, _ -> Response in
            var request = request
            let bytes = try await request.collectBody(upTo: 4 << 20)
            await script.arrived()
            defer { Task { await script.left() } }
            let status = await script.nextStatus()
            let delay = await script.answerDelay
            if delay > .zero { try await Task.sleep(for: delay) }
            continuation.yield(
                ReceivedWebhook(
                    body: Array(bytes.readableBytesView),
                    signature: request.headers[HTTPField.Name("x-hypertrack-signature")!],
                    messageID: request.headers[HTTPField.Name("x-amz-sns-message-id")!],
                    contentType: request.headers[.contentType], answered: status))
            return Response(status: .init(code: status))
        }
        let logger = Logger(label: "webhook-receiver", factory: { _ in SwiftLogNoOpLogHandler() })
        defer { continuation.finish() }
        return try await ServiceGroup.withRunning(logger: logger, notReady: CancellationError()) { ready in
            [
                Application(
                    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                    onServerRunning: { channel in ready(channel.localAddress?.port ?? 0) }, logger: logger)
            ]
        } _: { port in
            try await body("http://127.0.0.1:\(port)/webhooks")
        }
    }
}
