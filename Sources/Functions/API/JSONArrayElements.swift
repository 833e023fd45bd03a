/// The texts of a JSON array's elements, cut from the array's text without parsing their values.
///
/// **Why.** The inbox stores each kept event's payload, the event as sent. It took them from the delivery parsed
/// whole (`$1::jsonb -> index`): 4 ms of PostgreSQL for a city's 129 KB delivery of 434 locations (33rd session),
/// to keep the ~37 a drive reads. Cut here, each element goes as its own text and PostgreSQL parses only the kept
/// ones (``WebhookStatements/Inbox``). The scan follows only strings (with their escapes) and brackets: it is for
/// text that already decoded as a JSON array (a delivery the intake read, or its own encoding of one).
enum JSONArrayElements {
    /// Each element's text, trimmed of JSON whitespace, in order; `nil` when `text` is not an array as far as this
    /// scan can tell (not starting with `[`, unbalanced, an empty element, anything after the closing bracket).
    static func split(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { Self.split(bytes: $0) }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func split(bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var elements: [String] = []
        var index = 0
        let count = bytes.count
        while index < count, Self.isSpace(bytes[index]) { index += 1 }
        guard index < count, bytes[index] == UInt8(ascii: "[") else { return nil }
        index += 1
        var start = index
        var depth = 1
        var inString = false
        var escaped = false
        /// The element from `start` to `end`, trimmed; `nil` when it is empty.
        func element(upTo end: Int) -> String? {
            var from = start
            var to = end
            while from < to, Self.isSpace(bytes[from]) { from += 1 }
            while to > from, Self.isSpace(bytes[to - 1]) { to -= 1 }
            return from < to ? String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<to]), as: UTF8.self) : nil
        }
        while index < count {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    guard depth == 0 else { break }
                    guard byte == UInt8(ascii: "]") else { return nil }
                    // The array's closing bracket: its last element (none in `[]`), then only whitespace.
                    if let last = element(upTo: index) {
                        elements.append(last)
                    } else if !elements.isEmpty {
                        return nil
                    }
                    var rest = index + 1
                    while rest < count, Self.isSpace(bytes[rest]) { rest += 1 }
                    return rest == count ? elements : nil
                case UInt8(ascii: ",") where depth == 1:
                    guard let next = element(upTo: index) else { return nil }
                    elements.append(next)
                    start = index + 1
                default: break
                }
            }
            index += 1
        }
        return nil
    }
}
