import Metrics

/// The webhook endpoint's own metric: where an accepted delivery's time goes.
///
/// - `webhook.intake.duration` (timer, `stage` = `read`, `decode`, `store`): `read` is the body's arrival (from the
///   route's start to its last byte), `decode` its authentication and splitting into events (``WebhookIntake``; with
///   `WEBHOOKS_APPLY=worker` the authentication alone: the worker decodes), `store` the PostgreSQL work
///   (``APIStore/applyWebhook(messageID:intake:)``, the whole intake, or with `WEBHOOKS_APPLY=worker`
///   ``APIStore/storeWebhookAsReceived(messageID:body:)``, the receipt).
///
/// Why: HyperTrack's sender times the whole request (`http.server.request.duration` is the same from this side),
/// and a slow acknowledgement has three different cures (a slow sender or network, the API's CPU, PostgreSQL). The
/// 4,000-ride city's acknowledgement p99 (122-395 ms, issue 19 asks 50) could not be split without it.
enum WebhookMetrics {
    static func intake(read: Duration, decode: Duration, store: Duration) {
        for (stage, duration) in [("read", read), ("decode", decode), ("store", store)] {
            Metrics.Timer(label: "webhook.intake.duration", dimensions: [("stage", stage)]).record(duration: duration)
        }
    }
}
