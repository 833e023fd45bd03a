import Foundation
import Logging

/// `LOG_FORMAT=json`: one JSON object per line on standard error, with `timestamp` (ISO 8601, UTC, milliseconds),
/// `level`, `label`, `message`, `source` and `metadata` (strings, arrays and dictionaries as JSON).
struct JSONLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    let label: String
    private let sink: @Sendable (String) -> Void

    /// A handler writing to `sink` (standard error by default).
    init(label: String, sink: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.sink = sink
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = self.metadata
        if let provided = self.metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let explicit = event.metadata { merged.merge(explicit) { $1 } }
        if let error = event.error { merged["error"] = "\(error)" }
        let object: [String: Any] = [
            "timestamp": Self.timestamp(),
            "level": event.level.rawValue,
            "label": self.label,
            "message": event.message.description,
            "source": event.source,
            "metadata": merged.mapValues(Self.json),
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        self.sink(String(decoding: data, as: UTF8.self))
    }

    static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): return string
        case .stringConvertible(let convertible): return convertible.description
        case .array(let array): return array.map(json)
        case .dictionary(let dictionary): return dictionary.mapValues(json)
        }
    }

    static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// Writes one line to standard error (a single `write`, so concurrent lines do not interleave).
    @Sendable static func standardError(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }
}
