import Logging

/// The executable's one-time backend setup (libraries never do this).
enum Bootstrap {
    /// Logs go to standard error at the configured level.
    static func logging(_ configuration: Configuration) {
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
