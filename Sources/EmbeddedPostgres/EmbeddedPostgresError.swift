/// The one error type of `EmbeddedPostgres`.
public struct EmbeddedPostgresError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, comparable and safe to show.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case binariesNotFound
            case commandFailed
            case notReachable
            case invalidURL
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `initdb`/`pg_ctl` are not installed.
        public static let binariesNotFound = Code(.binariesNotFound)
        /// `initdb`, `pg_ctl` or a helper command exited with an error.
        public static let commandFailed = Code(.commandFailed)
        /// The server did not accept connections in time.
        public static let notReachable = Code(.notReachable)
        /// A `postgres://` URL could not be parsed.
        public static let invalidURL = Code(.invalidURL)

        public var description: String { self.base.rawValue }
    }

    /// The error's code.
    public let code: Code
    /// A human-readable explanation, including what to do about it.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "EmbeddedPostgresError.\(self.code): \(self.message)" }
}
