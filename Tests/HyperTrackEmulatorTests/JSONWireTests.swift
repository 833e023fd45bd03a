import Foundation
import Testing

@testable import HyperTrackEmulator

/// The emulator's own JSON (it never imports the client's models): strings written whole when nothing in them needs
/// escaping, escaped otherwise, and read back as they were.
@Suite("Emulator JSON: strings written and read back")
struct JSONWireTests {
    @Test(
        "each string serializes to valid JSON that parses back to it",
        arguments: [
            "", "plain", "Zürich ✓ 🚕", "quote \" inside", "back\\slash", "line\nbreak", "tab\t cr\r",
            "nul \u{0} bell \u{7} esc \u{1B}", "\u{1F}", "/slash/", "2026-11-29T15:00:00.123Z",
        ]
    )
    func roundTrip(text: String) throws {
        let value: JSON = ["k": .string(text), "a": [.string(text), 1.5, nil, true]]
        let serialized = value.serialized
        #expect(JSON.parse(Array(serialized.utf8)) == value, "\(serialized)")
        // Foundation reads it as the same string: the escapes are JSON's.
        let object = try JSONSerialization.jsonObject(with: Data(serialized.utf8)) as? [String: Any]
        #expect(object?["k"] as? String == text)
        // Nothing to escape: written as it is.
        if !text.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 }) {
            #expect(serialized.contains("\"\(text)\""))
        }
    }
}
