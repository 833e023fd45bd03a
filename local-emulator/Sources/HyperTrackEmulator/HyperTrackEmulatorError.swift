/// The one error type of the emulator library (problems on the wire are HTTP responses, not this).
public struct HyperTrackEmulatorError: Error, Sendable, Equatable, CustomStringConvertible,
    CustomDebugStringConvertible
{
    /// What went wrong, comparable and safe to use as a label.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable {
            case invalidConfiguration = "invalid_configuration"
            case serverNotStarted = "server_not_started"
            case stateExport = "state_export"
            case stateImport = "state_import"
        }

        let base: Base

        /// The configuration is unusable (see the message).
        public static let invalidConfiguration = Code(base: .invalidConfiguration)
        /// The HTTP server stopped before it was listening.
        public static let serverNotStarted = Code(base: .serverNotStarted)
        /// Writing the state failed.
        public static let stateExport = Code(base: .stateExport)
        /// Reading the state failed (missing, unreadable or not an emulator export).
        public static let stateImport = Code(base: .stateImport)

        public var description: String { base.rawValue }
    }

    /// The error's code.
    public let code: Code
    /// Details, for logs.
    public let message: String
    let file: String
    let line: Int

    init(_ code: Code, _ message: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// A short description safe to show anyone.
    public var description: String { "HyperTrackEmulatorError(\(code))" }

    /// Everything, for logs.
    public var debugDescription: String { "HyperTrackEmulatorError(\(code)): \(message) [\(file):\(line)]" }
}
