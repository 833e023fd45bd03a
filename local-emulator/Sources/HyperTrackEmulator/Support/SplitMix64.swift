/// A tiny seeded random generator (SplitMix64) whose state can be exported, so ids are reproducible.
struct SplitMix64: RandomNumberGenerator, Codable, Sendable {
    private(set) var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A lowercase UUID string.
    mutating func uuid() -> String {
        let hi = next()
        let lo = next()
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: hi >> (56 - 8 * $0)) }
        bytes += (0..<8).map { UInt8(truncatingIfNeeded: lo >> (56 - 8 * $0)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    /// A share-URL tracking id: 7 characters of `[A-Za-z0-9]`.
    mutating func trackingID() -> String {
        String((0..<7).map { _ in Self.alphabet[Int(next() % UInt64(Self.alphabet.count))] })
    }
}
