/// The one error type of `EmbeddedPostgres`: compare by `code`; `debugDescription` adds where it was thrown.
public struct EmbeddedPostgresError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, comparable and safe to show.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case binariesNotFound = "binaries_not_found"
            case commandFailed = "command_failed"
            case portInUse = "port_in_use"
            case notReachable = "not_reachable"
            case invalidURL = "invalid_url"
            case invalidTLS = "invalid_tls"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `initdb`/`pg_ctl` are not installed.
        public static let binariesNotFound = Code(.binariesNotFound)
        /// `initdb`, `pg_ctl` or a helper command exited with an error.
        public static let commandFailed = Code(.commandFailed)
        /// The server could not bind its port: another socket holds it.
        public static let portInUse = Code(.portInUse)
        /// The server did not accept connections in time.
        public static let notReachable = Code(.notReachable)
        /// A `postgres://` URL could not be parsed.
        public static let invalidURL = Code(.invalidURL)
        /// An `sslmode` is unknown, or a CA file is missing, unreadable or needed and not given.
        public static let invalidTLS = Code(.invalidTLS)

        /// A stable snake_case name, usable as a metric label.
        public var description: String { self.base.rawValue }
    }

    /// The error's code.
    public let code: Code
    /// A human-readable explanation, including what to do about it.
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

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    public var description: String { "EmbeddedPostgresError.\(self.code): \(self.message)" }
    public var debugDescription: String { "\(self.description) [\(self.file):\(self.line)]" }
}
