/// The one error type of the emulator library (problems on the wire are HTTP responses, not this).
public struct HyperTrackEmulatorError: Error, Sendable, Equatable, CustomStringConvertible,
    CustomDebugStringConvertible
{
    /// What went wrong, comparable and safe to use as a label.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidConfiguration = "invalid_configuration"
            case serverNotStarted = "server_not_started"
            case stateExport = "state_export"
            case stateImport = "state_import"
            case invalidFault = "invalid_fault"
            case invalidManeuver = "invalid_maneuver"
            case deviceNotFound = "device_not_found"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The configuration is unusable (see the message).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The HTTP server stopped before it was listening.
        public static let serverNotStarted = Code(.serverNotStarted)
        /// Writing the state failed.
        public static let stateExport = Code(.stateExport)
        /// Reading the state failed (missing, unreadable or not an emulator export).
        public static let stateImport = Code(.stateImport)
        /// A fault's fields are out of range.
        public static let invalidFault = Code(.invalidFault)
        /// A manoeuvre cannot be added (unknown kind, a trip that is not driving, a time in the past).
        public static let invalidManeuver = Code(.invalidManeuver)
        /// No device has this id.
        public static let deviceNotFound = Code(.deviceNotFound)

        /// A stable snake_case name, usable as a metric label.
        public var description: String { self.base.rawValue }
    }

    /// The error's code.
    public let code: Code
    /// A human-readable explanation.
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

    public var description: String { "HyperTrackEmulatorError.\(self.code): \(self.message)" }
    public var debugDescription: String { "\(self.description) [\(self.file):\(self.line)]" }
}
