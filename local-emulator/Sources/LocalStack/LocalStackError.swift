/// The one error type of `LocalStack`: what went wrong, in words a developer can act on. Compare by `code`;
/// `debugDescription` adds where it was thrown.
public struct LocalStackError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, comparable and bounded (usable as a metric label).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case apiDidNotStart = "api_did_not_start"
            case invalidPayload = "invalid_payload"
            case unknownFunction = "unknown_function"
            case timedOut = "timed_out"
            case unexpectedReply = "unexpected_reply"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The HTTP API (or the whole stack) stopped before it was ready.
        public static let apiDidNotStart = Code(.apiDidNotStart)
        /// A functions-shell payload is not a document the function can take; nothing was run.
        public static let invalidPayload = Code(.invalidPayload)
        /// The functions shell was asked for a function that is not registered; nothing was run.
        public static let unknownFunction = Code(.unknownFunction)
        /// Something the demo or a scope waited for did not happen in time.
        public static let timedOut = Code(.timedOut)
        /// The API answered the demo with something other than what it asked for.
        public static let unexpectedReply = Code(.unexpectedReply)

        /// A stable snake_case name, usable as a metric label.
        public var description: String { self.base.rawValue }
    }

    /// The error's code.
    public let code: Code
    /// What went wrong.
    public let message: String
    /// Where the error was created.
    public let file: String
    /// Where the error was created.
    public let line: Int

    private init(_ code: Code, _ message: String, file: String, line: Int) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    static func apiDidNotStart(_ message: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(.apiDidNotStart, message, file: file, line: line)
    }
    static func invalidPayload(_ message: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(.invalidPayload, message, file: file, line: line)
    }
    static func unknownFunction(_ message: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(.unknownFunction, message, file: file, line: line)
    }
    static func timedOut(_ message: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(.timedOut, message, file: file, line: line)
    }
    static func unexpectedReply(_ message: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(.unexpectedReply, message, file: file, line: line)
    }

    /// The stack stopped before it called its `onReady` (thrown by scopes that wait for it).
    public static var stoppedBeforeReady: Self {
        Self(.apiDidNotStart, "the local stack stopped before it was ready", file: #fileID, line: #line)
    }

    /// Whether the error is about a bad payload or function name (nothing was run or changed).
    public var isBadInput: Bool { self.code == .invalidPayload || self.code == .unknownFunction }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    public var description: String { "LocalStackError.\(self.code): \(self.message)" }
    public var debugDescription: String { "\(self.description) [\(self.file):\(self.line)]" }
}
