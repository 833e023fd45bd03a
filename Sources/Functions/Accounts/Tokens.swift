import Crypto
import Foundation

/// The secrets of accounts: tokens, operator keys and one-time codes, and how each is stored.
///
/// Tokens and keys carry 256 random bits, so their SHA-256 is a safe lookup key without a salt (no list of
/// candidates could be precomputed). A 6-digit code has only 10⁶ values, so it is stored as HMAC-SHA256 keyed by a
/// random salt of its own and compared in constant time.
enum Tokens {
    /// A new token: 32 random bytes, base64url without padding, after `prefix` (which says what it is in logs and
    /// leak scanners: `rs_at_` access, `rs_rt_` refresh, `rs_op_` operator key; `rs_` were the first tokens).
    static func make(prefix: String = "rs_") -> String {
        prefix + Self.base64URL(Self.randomBytes(32))
    }

    /// The stored form of a token or key.
    static func hash(_ token: String) -> String {
        Self.hex(SHA256.hash(data: Data(token.utf8)))
    }

    /// A uniformly random 6-digit code.
    static func code() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = Int.random(in: 0..<1_000_000, using: &generator)
        return String(format: "%06d", value)
    }

    /// A per-code salt: 16 random bytes as hex.
    static func salt() -> String {
        Self.hex(Self.randomBytes(16))
    }

    /// The stored form of a code: HMAC-SHA256 of the code keyed by its salt, as hex.
    static func codeHash(_ code: String, salt: String) -> String {
        Self.hex(HMAC<SHA256>.authenticationCode(for: Data(code.utf8), using: SymmetricKey(data: Data(salt.utf8))))
    }

    /// Whether two hashes are equal, in time that depends only on their length.
    static func equal(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
