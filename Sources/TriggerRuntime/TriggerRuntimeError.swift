/// The one error type of `TriggerRuntime`.
///
/// Compare by `code`; `description` is safe to show anyone, `message` says what to do about it, and
/// `debugDescription` adds where the error was thrown.
public struct TriggerRuntimeError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, comparable and bounded (usable as a metric label).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidMigrations = "invalid_migrations"
            case divergentHistory = "divergent_history"
            case invalidRegistration = "invalid_registration"
            case invalidConfiguration = "invalid_configuration"
            case notFound = "not_found"
            case notDead = "not_dead"
            case leaseLost = "lease_lost"
            case timeout
            case functionNotRegistered = "function_not_registered"
            case noTransaction = "no_transaction"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The migrations passed in are malformed (duplicate names, empty names or statements).
        public static let invalidMigrations = Code(.invalidMigrations)
        /// The migration history recorded in the database differs from the code's list.
        public static let divergentHistory = Code(.divergentHistory)
        /// A registration names a table or column that does not exist, or is otherwise invalid.
        public static let invalidRegistration = Code(.invalidRegistration)
        /// A configuration value is out of range.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// No delivery has the given id.
        public static let notFound = Code(.notFound)
        /// The delivery is not dead-lettered, so it cannot be retried.
        public static let notDead = Code(.notDead)
        /// The delivery's lease was taken over by another worker; the completion was refused.
        public static let leaseLost = Code(.leaseLost)
        /// A handler ran longer than its function's timeout.
        public static let timeout = Code(.timeout)
        /// A delivery names a function this worker does not have.
        public static let functionNotRegistered = Code(.functionNotRegistered)
        /// Scheduling or cancelling a timer in PostgreSQL was given no transaction to write in.
        public static let noTransaction = Code(.noTransaction)

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

    public var description: String { "TriggerRuntimeError.\(self.code): \(self.message)" }
    public var debugDescription: String { "\(self.description) [\(self.file):\(self.line)]" }
}
