import Foundation

/// One event of a `text/event-stream` body, as a driver app reads `GET /v1/events`: its `event:` name, its `id:`
/// (the position to resume after), its `data:` lines joined, or a comment (the server's heartbeats).
struct ServerSentEvent: Sendable, Equatable {
    var name: String?
    var id: String?
    var data: String
    /// A comment line (`: heartbeat`), when the frame held nothing else.
    var comment: String?

    /// Splits a growing body into events: bytes go in as they arrive (a frame may span chunks, a character too),
    /// complete frames (a blank line ends one) come out. Lines end in `\n` or `\r\n`, as the format allows.
    ///
    /// It reads bytes, each once: it was a `String` searched from its start with Foundation's `range(of:)` for each
    /// frame, and cut at its front: 7% of the `simulate` process's CPU in the 35th session's 4,000-ride city (perf,
    /// run Q3), and quadratic in a chunk's frames when a reconnected stream's replay arrived in one read.
    struct Parser: Sendable {
        /// The bytes of the frame being read (complete lines and the line being read).
        private var pending: [UInt8] = []
        /// Where the line being read starts in `pending`.
        private var lineStart = 0

        mutating func feed(_ text: String) -> [ServerSentEvent] { self.feed(bytes: text.utf8) }

        mutating func feed(bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
            let searchFrom = self.pending.count
            self.pending.append(contentsOf: bytes)
            var events: [ServerSentEvent] = []
            var frameStart = 0
            var index = searchFrom
            while let newline = self.pending[index...].firstIndex(of: UInt8(ascii: "\n")) {
                var lineEnd = newline
                if lineEnd > self.lineStart, self.pending[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                if lineEnd == self.lineStart {
                    // A blank line: the frame's lines are complete.
                    if let event = Self.event(self.pending[frameStart..<self.lineStart]) { events.append(event) }
                    frameStart = newline + 1
                }
                self.lineStart = newline + 1
                index = newline + 1
            }
            self.pending.removeFirst(frameStart)
            self.lineStart -= frameStart
            return events
        }

        /// One frame's fields from its bytes (its lines with their ends).
        static func event(_ bytes: ArraySlice<UInt8>) -> ServerSentEvent? {
            var text = String(decoding: bytes, as: UTF8.self)
            if bytes.contains(UInt8(ascii: "\r")) { text = text.replacingOccurrences(of: "\r\n", with: "\n") }
            return Self.event(Substring(text))
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
