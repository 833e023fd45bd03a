/// The local stack's error: what went wrong, in words a developer can act on.
public struct LocalStackError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case apiDidNotStart
        case invalidPayload
        case unknownFunction
        case timedOut
        case unexpectedReply
    }

    private let code: Code
    /// What went wrong.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    static func apiDidNotStart(_ message: String) -> Self { Self(.apiDidNotStart, message) }
    static func invalidPayload(_ message: String) -> Self { Self(.invalidPayload, message) }
    static func unknownFunction(_ message: String) -> Self { Self(.unknownFunction, message) }
    static func timedOut(_ message: String) -> Self { Self(.timedOut, message) }
    static func unexpectedReply(_ message: String) -> Self { Self(.unexpectedReply, message) }

    /// The stack stopped before it called its `onReady` (thrown by scopes that wait for it).
    public static var stoppedBeforeReady: Self { Self(.apiDidNotStart, "the local stack stopped before it was ready") }

    /// Whether the error is about a bad payload or function name (nothing was run or changed).
    public var isBadInput: Bool { self.code == .invalidPayload || self.code == .unknownFunction }

    public var description: String { self.message }
}
