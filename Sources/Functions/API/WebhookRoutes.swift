import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HyperTrackAPI
import Logging

/// `POST /v1/hypertrack/webhooks/{secret}` (and `/v1/hypertrack/webhooks` when no path secret is configured):
/// authenticates the delivery (``WebhookAuthentication``), applies its usable events and records the rest as rejected
/// (``WebhookIntake``), or stores its body as received for the worker's `applyWebhookDelivery` to do both
/// (``Backend/Configuration/Webhook/Apply``), and answers 202; `onTripWebhook` handles the trip events in the inbox.
///
/// - 401: not authentic; nothing is stored.
/// - 400: no `x-amz-sns-message-id` (nothing to deduplicate by); nothing is stored.
/// - 200: an AWS SNS `SubscriptionConfirmation` (logged, and confirmed when configured).
/// - 202: everything else that authenticated, even when every event was rejected: HyperTrack treats a 4xx as
///   delivered and would never send it again, and a retry would not make a malformed event readable.
struct WebhookRoutes: Sendable {
    let store: APIStore
    let authentication: WebhookAuthentication
    let confirmSubscriptions: Bool
    let apply: Backend.Configuration.Webhook.Apply
    let logger: Logger

    init(store: APIStore, configuration: Backend.Configuration.Webhook, logger: Logger) {
        self.store = store
        self.logger = logger
        self.authentication = WebhookAuthentication(configuration: configuration, logger: logger)
        self.confirmSubscriptions = configuration.confirmSubscriptions
        self.apply = configuration.apply
    }

    /// The largest delivery read (413 above it). HyperTrack documents no batch size, and a 4xx is a delivery lost
    /// for good, so the bound is far above any batch seen: it is there to bound one request's memory. It was 1 MiB
    /// until the 10,000-driver city (11th session) lost 87 rides: 500-event deliveries carrying trip summaries
    /// (5 KB each, up to 13 KB) reached 1.1 MB, the emulator's deliveries of one step were answered 413, and their
    /// `destination_arrival` events never arrived (the rides stayed `DROPPING_OFF` with the driver at the drop-off).
    static let maximumBodyBytes = 32 * 1024 * 1024

    // Both are valid header-name tokens, so the initialiser cannot fail.
    static let signatureHeader = HTTPField.Name(hyperTrackSignatureHeader)!
    static let messageIDHeader = HTTPField.Name("x-amz-sns-message-id")!
    static let messageTypeHeader = HTTPField.Name("x-amz-sns-message-type")!

    func register(_ group: RouterGroup<APIRequestContext>) {
        group.post("hypertrack/webhooks") { request, context in
            try await self.receive(request, pathSecret: nil, context: context)
        }
        group.post("hypertrack/webhooks/:secret") { request, context in
            try await self.receive(request, pathSecret: context.parameters.get("secret"), context: context)
        }
    }

    private func receive(_ request: Request, pathSecret: String?, context: APIRequestContext) async throws
        -> EditedResponse<StatusView>
    {
        let started = ContinuousClock.now
        let buffer = try await request.body.collect(upTo: Self.maximumBodyBytes)
        let body = Data(buffer.readableBytesView)
        let read = ContinuousClock.now
        try self.authentication.authenticate(
            pathSecret: pathSecret,
            body: body,
            signature: request.headers[Self.signatureHeader]
        )
        if request.headers[Self.messageTypeHeader] == "SubscriptionConfirmation" {
            return EditedResponse(status: .ok, response: await self.subscriptionConfirmation(body))
        }
        guard let messageID = request.headers[Self.messageIDHeader], !messageID.isEmpty else {
            throw APIProblem.badRequest("x-amz-sns-message-id: the header is required")
        }
        let detail: String
        switch self.apply {
        case .worker:
            // Stored as received: the worker decodes it, applies its events and records the rejected ones.
            let authenticated = ContinuousClock.now
            try await self.store.storeWebhookAsReceived(messageID: messageID, body: buffer)
            WebhookMetrics.intake(
                read: read - started,
                decode: authenticated - read,
                store: ContinuousClock.now - authenticated
            )
            detail = "\(body.count) bytes received; the events are applied in a moment"
        case .request:
            let intake = WebhookIntake(body: body)
            let decoded = ContinuousClock.now
            try await self.store.applyWebhook(messageID: messageID, intake: intake)
            WebhookMetrics.intake(read: read - started, decode: decoded - read, store: ContinuousClock.now - decoded)
            detail =
                "\(intake.events.count) event\(intake.events.count == 1 ? "" : "s") received"
                + (intake.rejections.isEmpty ? "" : ", \(intake.rejections.count) rejected")
        }
        return EditedResponse(status: .accepted, response: StatusView(status: "accepted", detail: detail))
    }

    /// An AWS SNS subscription request: its `SubscribeURL` is logged, and fetched (which confirms the subscription)
    /// when configured and when it is an https URL on an `amazonaws.com` host; any other URL is never fetched, so
    /// the endpoint cannot be made to call an arbitrary address.
    private func subscriptionConfirmation(_ body: Data) async -> StatusView {
        let object = (try? JSONDecoder().decode(JSONValue.self, from: body))?.objectValue
        guard let text = object?["SubscribeURL"]?.stringValue, let url = URL(string: text) else {
            self.logger.warning("SNS subscription confirmation without a SubscribeURL")
            return StatusView(status: "ignored", detail: "no SubscribeURL")
        }
        let trusted = url.scheme == "https" && (url.host?.hasSuffix(".amazonaws.com") ?? false)
        guard self.confirmSubscriptions, trusted else {
            self.logger.notice(
                "SNS subscription confirmation received: open its SubscribeURL to confirm",
                metadata: ["sns.subscribe_url": "\(text)", "sns.trusted_host": "\(trusted)"]
            )
            return StatusView(status: "received", detail: "open the SubscribeURL (logged) to confirm")
        }
        do {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: text), timeout: .seconds(10))
            self.logger.notice("SNS subscription confirmed", metadata: ["http.status": "\(response.status)"])
            return StatusView(status: "confirmed", detail: "HTTP \(response.status)")
        } catch {
            self.logger.error("SNS subscription confirmation failed", metadata: ["error": "\(error)"])
            return StatusView(status: "received", detail: "confirming failed; open the SubscribeURL (logged)")
        }
    }
}
