import Foundation

/// A delivery attempt waiting for its time.
struct PendingAttempt: Sendable {
    var messageID: String
    var body: [UInt8]
    var eventTypes: [String]
    var attempt: Int
    var dueAt: Date
}
