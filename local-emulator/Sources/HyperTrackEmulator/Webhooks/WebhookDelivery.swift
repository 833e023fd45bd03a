import Foundation

/// One attempt (or non-attempt) to deliver a webhook POST, as listed by `GET /_emulator/webhooks`.
public struct WebhookDelivery: Sendable, Equatable {
    /// What became of the attempt.
    public enum Outcome: String, Sendable, Hashable {
        /// The receiver answered 2xx or 3xx.
        case delivered
        /// The receiver answered 4xx: accepted, not retried (as SNS does).
        case rejected
        /// 5xx, timeout or connection error; another attempt is scheduled `webhookRetryInterval` later.
        case retryScheduled = "retry_scheduled"
        /// 5xx, timeout or connection error on the last allowed attempt.
        case failed
        /// Dropped by a `drop_webhooks` fault; never sent.
        case dropped
        /// No webhook URL is configured; never sent.
        case notConfigured = "not_configured"
    }

    /// `x-amz-sns-message-id`, the same on every attempt of one delivery.
    public let messageID: String
    /// 1 for the first attempt, then 2, 3, 4 for retries.
    public let attempt: Int
    /// Emulated time of the attempt.
    public let attemptedAt: Date
    /// The receiver's status code, if it answered.
    public let statusCode: Int?
    /// The transport error, if any.
    public let error: String?
    /// The outcome.
    public let outcome: Outcome
    /// The `type` of each event in the body, in order.
    public let eventTypes: [String]
    /// The exact body that was (or would have been) POSTed and signed.
    public let body: String

    var json: JSON {
        [
            "message_id": .string(messageID), "attempt": .number(Double(attempt)),
            "attempted_at": Timestamp.json(attemptedAt), "status_code": statusCode.map { .number(Double($0)) } ?? .null,
            "error": error.json, "outcome": .string(outcome.rawValue),
            "event_types": .array(eventTypes.map(JSON.string)), "events": JSON.parse(Array(body.utf8)) ?? .null,
        ]
    }
}
