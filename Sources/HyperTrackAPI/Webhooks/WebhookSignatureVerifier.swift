import Crypto
import Foundation
import Logging

/// Checks that a webhook delivery comes from HyperTrack.
///
/// HyperTrack does not document its scheme; this project's decision (API notes §10) is
/// ``HMACWebhookSignatureVerifier``. The protocol lets a deployment swap in the real scheme once it is known.
public protocol WebhookSignatureVerifier: Sendable {
    /// Returns when the delivery is authentic (or accepted unsigned by explicit configuration); throws otherwise.
    /// - Parameters:
    ///   - body: The raw request body, exactly as received.
    ///   - signature: The value of the `x-hypertrack-signature` header, `nil` when absent.
    /// - Throws: ``HyperTrackAPIError`` with code ``HyperTrackAPIError/Code/missingSignature`` or
    ///   ``HyperTrackAPIError/Code/invalidSignature``.
    func verify(body: some DataProtocol, signature: String?) throws
}

/// The webhook signature header.
public let hyperTrackSignatureHeader = "x-hypertrack-signature"

/// `x-hypertrack-signature: hex(HMAC-SHA256(key: webhook secret, message: raw body))`, compared in constant time.
///
/// The header may be upper- or lower-case hex, optionally prefixed `sha256=`. With `acceptUnsigned`, a delivery
/// without the header is accepted and a warning is logged; a delivery with a wrong signature is always refused.
public struct HMACWebhookSignatureVerifier: WebhookSignatureVerifier, CustomStringConvertible, CustomReflectable {
    private let key: SymmetricKey
    /// Whether deliveries without a signature are accepted (logged as a warning each time).
    public let acceptUnsigned: Bool
    private let logger: Logger

    /// Creates a verifier.
    /// - Parameters:
    ///   - secret: The webhook secret (by default HyperTrack's secret key); never logged.
    ///   - acceptUnsigned: Accept deliveries without a signature header. Off by default; for local setups only.
    ///   - logger: Where the warning about unsigned deliveries goes.
    public init(secret: String, acceptUnsigned: Bool = false, logger: Logger) {
        self.key = SymmetricKey(data: Data(secret.utf8))
        self.acceptUnsigned = acceptUnsigned
        self.logger = logger
    }

    public func verify(body: some DataProtocol, signature: String?) throws {
        guard let signature = signature?.trimmingCharacters(in: .whitespaces), !signature.isEmpty else {
            guard self.acceptUnsigned else {
                throw HyperTrackAPIError(code: .missingSignature, reason: "no \(hyperTrackSignatureHeader) header")
            }
            self.logger.warning(
                "Accepting an unsigned HyperTrack webhook (acceptUnsigned is on)",
                metadata: ["http.body_bytes": "\(body.count)"]
            )
            return
        }
        var hex = Substring(signature)
        if hex.lowercased().hasPrefix("sha256=") { hex = hex.dropFirst(7) }
        guard let mac = Self.bytes(hex: hex),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(body), using: self.key)
        else {
            throw HyperTrackAPIError(code: .invalidSignature, reason: "the signature does not match the body")
        }
    }

    /// The signature HyperTrack (and our emulator) would send for `body`: lowercase hex.
    /// - Parameters:
    ///   - body: The raw body.
    ///   - secret: The webhook secret.
    public static func signature(for body: some DataProtocol, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(body), using: SymmetricKey(data: Data(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    static func bytes(hex: Substring) -> [UInt8]? {
        guard hex.utf8.count % 2 == 0, !hex.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for character in hex.utf8 {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let value = high {
                bytes.append(value << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    public var description: String { "HMACWebhookSignatureVerifier(acceptUnsigned: \(self.acceptUnsigned))" }

    public var customMirror: Mirror { Mirror(self, children: ["acceptUnsigned": self.acceptUnsigned]) }
}
