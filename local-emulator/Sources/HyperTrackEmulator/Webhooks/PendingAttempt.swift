import Foundation

/// A delivery attempt waiting for its time.
struct PendingAttempt: Sendable {
    var messageID: String
    var body: [UInt8]
    var eventTypes: [String]
    var attempt: Int
    var dueAt: Date
    /// Events in `body`.
    var eventCount: Int
    /// A first attempt that no fault touched: events produced at the same instant may join it, up to the batch
    /// size (``WebhookQueue/join(_:eventCount:types:dueAt:limit:)``).
    var joinable = false
}
