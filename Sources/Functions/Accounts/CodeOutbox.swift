import Foundation
import Logging
import Synchronization

/// The local stack's code delivery: codes are logged and kept in memory, readable at `GET /local/auth/codes/{phone}`,
/// which the router mounts only when the delivery is an outbox (``Backend/Configuration/Auth/delivery``): only the
/// local stack and the tests configure one, `serve` cannot. So the demo, the README's walkthrough and the tests sign
/// in the way an app does, with a code they read here instead of from an SMS.
public final class CodeOutbox: CodeDelivery {
    private let messages = Mutex<[String: CodeMessage]>([:])
    private let logger: Logger

    /// Creates an empty outbox.
    /// - Parameter logger: Where each code is logged (at notice level, with the phone).
    public init(logger: Logger) {
        self.logger = logger
    }

    public func deliver(_ message: CodeMessage) async throws {
        self.messages.withLock { $0[Self.key(message.phone)] = message }
        self.logger.notice(
            "sign-in code (local outbox)",
            metadata: [
                "auth.phone": "\(message.phone)", "auth.role": "\(message.role)", "auth.code": "\(message.code)",
            ]
        )
    }

    /// The last code sent to `phone`, if any. Phones are compared by their digits only, so a control route can
    /// take `4915112345` for `+49 151 12345` (a `+` in a URL is easily mangled).
    public func latest(phone: String) -> CodeMessage? {
        self.messages.withLock { $0[Self.key(phone)] }
    }

    private static func key(_ phone: String) -> String {
        phone.filter { $0.isASCII && $0.isNumber }
    }
}
