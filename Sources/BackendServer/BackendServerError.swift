/// The one error type of `BackendServer`: compare by `code`; `description` is safe to show anyone, and
/// `debugDescription` adds where it was thrown.
public struct BackendServerError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, comparable and bounded (usable as a metric label).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidConfiguration = "invalid_configuration"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A configuration value is wrong; the message names the variable or flag.
        public static let invalidConfiguration = Code(.invalidConfiguration)

        /// A stable snake_case name, usable as a metric label.
        public var description: String { self.base.rawValue }
    }

    /// The error's code.
    public let code: Code
    /// A human-readable explanation, naming what to change.
    public let message: String
    /// Where the error was created.
    public let file: String
    /// Where the error was created.
    public let line: Int

    init(_ code: Code, _ message: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// A configuration value is wrong; the message names the variable or flag.
    static func invalidConfiguration(_ message: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(.invalidConfiguration, message, file: file, line: line)
    }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    public var description: String { "BackendServerError.\(self.code): \(self.message)" }
    public var debugDescription: String { "\(self.description) [\(self.file):\(self.line)]" }
}
