import Foundation
import HTTPTypes
import Hummingbird
import HyperTrackAPI
import Logging

/// `POST /v1/hypertrack/webhooks`: verifies the signature over the raw body, stores the events in the inbox keyed
/// by `x-amz-sns-message-id`, and answers 202 at once; `onTripWebhook` does the work. 401 on a missing or bad
/// signature, 400 on a malformed body or a missing message id; nothing is stored in either case.
struct WebhookRoutes: Sendable {
    let store: APIStore
    let verifier: (any WebhookSignatureVerifier)?
    let logger: Logger

    init(store: APIStore, configuration: Backend.Configuration.Webhook, logger: Logger) {
        self.store = store
        self.logger = logger
        if let secret = configuration.secret {
            self.verifier = HMACWebhookSignatureVerifier(
                secret: secret,
                acceptUnsigned: configuration.acceptUnsigned,
                logger: logger
            )
        } else if configuration.acceptUnsigned {
            logger.warning("HyperTrack webhooks are accepted WITHOUT signature verification (acceptUnsigned)")
            self.verifier = nil
        } else {
            self.verifier = RefuseAllVerifier()
        }
    }

    // Both are valid header-name tokens, so the initialiser cannot fail.
    static let signatureHeader = HTTPField.Name(hyperTrackSignatureHeader)!
    static let messageIDHeader = HTTPField.Name("x-amz-sns-message-id")!

    func register(_ group: RouterGroup<APIRequestContext>) {
        group.post("hypertrack/webhooks") { request, context in
            let body = try await request.body.collect(upTo: 1024 * 1024)
            let bytes = Data(body.readableBytesView)
            if let verifier = self.verifier {
                do {
                    try verifier.verify(body: bytes, signature: request.headers[Self.signatureHeader])
                } catch {
                    throw APIProblem(
                        .unauthorized,
                        title: "Invalid signature",
                        detail: "\(hyperTrackSignatureHeader): \(error)"
                    )
                }
            }
            guard let messageID = request.headers[Self.messageIDHeader], !messageID.isEmpty else {
                throw APIProblem.badRequest("x-amz-sns-message-id: the header is required")
            }
            let events: [WebhookEvent]
            do {
                events = try WebhookEvent.decodeDelivery(bytes)
            } catch {
                throw APIProblem.badRequest("the body is not a JSON array of HyperTrack events")
            }
            let inbox = try events.enumerated().map { try Self.inboxEvent($0.element, index: $0.offset) }
            let inserted = try await self.store.storeWebhook(messageID: messageID, events: inbox)
            return EditedResponse(
                status: .accepted,
                response: StatusView(status: "accepted", detail: "\(inserted) of \(inbox.count) events stored")
            )
        }
    }

    static func inboxEvent(_ event: WebhookEvent, index: Int) throws -> InboxEvent {
        var inbox = InboxEvent(
            index: index,
            type: event.type.rawValue,
            deviceID: event.deviceID,
            recordedAt: event.recordedAt ?? event.createdAt,
            payload: String(decoding: try JSONEncoder().encode(event.raw), as: UTF8.self)
        )
        switch event.payload {
        case .location(let update):
            inbox.latitude = update.coordinate?.latitude
            inbox.longitude = update.coordinate?.longitude
        case .trip(let trip):
            inbox.value = trip.value.rawValue
            inbox.tripID = trip.tripID
            inbox.summary = trip.summary.map(LegSummary.init)
        case .deviceStatus(let status):
            inbox.value = status.value.rawValue
            inbox.latitude = event.location?.latitude
            inbox.longitude = event.location?.longitude
        case .battery(let battery):
            inbox.value = battery.value.rawValue
        case .nearbyDevicesRequest, .unknown:
            inbox.value = event.raw.objectValue?["data"]?.objectValue?["value"]?.stringValue
        }
        return inbox
    }
}

/// Without a secret and without `acceptUnsigned`, no delivery can be authentic.
private struct RefuseAllVerifier: WebhookSignatureVerifier {
    func verify(body: some DataProtocol, signature: String?) throws {
        throw RefusedError()
    }
    struct RefusedError: Error, CustomStringConvertible {
        var description: String { "no webhook secret is configured" }
    }
}
