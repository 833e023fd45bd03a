import Foundation

/// One event of a `text/event-stream` body, as a driver app reads `GET /v1/events`: its `event:` name, its `id:`
/// (the position to resume after), its `data:` lines joined, or a comment (the server's heartbeats).
struct ServerSentEvent: Sendable, Equatable {
    var name: String?
    var id: String?
    var data: String
    /// A comment line (`: heartbeat`), when the frame held nothing else.
    var comment: String?

    /// Splits a growing body into events: bytes go in as they arrive (a frame may span chunks), complete frames (a
    /// blank line ends one) come out. Lines end in `\n` or `\r\n`, as the format allows.
    struct Parser: Sendable {
        private var pending = ""

        mutating func feed(_ text: String) -> [ServerSentEvent] {
            self.pending += text
            // On the whole buffer: a `\r\n` may be split between two chunks.
            if self.pending.contains("\r\n") {
                self.pending = self.pending.replacingOccurrences(of: "\r\n", with: "\n")
            }
            var events: [ServerSentEvent] = []
            while let end = self.pending.range(of: "\n\n") {
                let frame = self.pending[..<end.lowerBound]
                self.pending.removeSubrange(..<end.upperBound)
                if let event = Self.event(frame) { events.append(event) }
            }
            return events
        }

        /// One frame's fields (`field: value`, one optional space after the colon); `nil` for an empty frame.
        static func event(_ frame: Substring) -> ServerSentEvent? {
            var event = ServerSentEvent(data: "")
            var data: [Substring] = []
            var fields = 0
            for line in frame.split(separator: "\n", omittingEmptySubsequences: true) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                var value = line[line.index(after: colon)...]
                if value.first == " " { value = value.dropFirst() }
                switch line[..<colon] {
                case "": event.comment = String(value)
                case "event": event.name = String(value)
                case "id": event.id = String(value)
                case "data": data.append(value)
                default: continue
                }
                fields += 1
            }
            guard fields > 0 else { return nil }
            event.data = data.joined(separator: "\n")
            return event
        }
    }
}
