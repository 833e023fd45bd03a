import Foundation
import Logging

/// One captured log message.
struct LogEntry: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: [String: String]
}

/// A log handler that records messages into `Observations`, so tests can wait for what the runtime reports.
/// `TEST_LOG=1` also prints them.
struct CapturingLogHandler: LogHandler {
    let observations: Observations<LogEntry>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = self.metadata
        merged.merge(event.metadata ?? [:]) { $1 }
        let flat = merged.mapValues { "\($0)" }
        self.observations.append(LogEntry(level: event.level, message: "\(event.message)", metadata: flat))
        if ProcessInfo.processInfo.environment["TEST_LOG"] == "1" {
            FileHandle.standardError.write(Data("\(event.level) \(event.message) \(flat)\n".utf8))
        }
    }
}

extension Logger {
    /// A logger whose messages land in the returned observations.
    static func capturing(_ label: String = "test") -> (Logger, Observations<LogEntry>) {
        let observations = Observations<LogEntry>()
        var logger = Logger(label: label) { _ in CapturingLogHandler(observations: observations) }
        logger.logLevel = .debug
        return (logger, observations)
    }
}
