import Foundation
import HyperTrackAPI
import Logging
import Testing

@Suite("Webhook signatures")
struct WebhookSignatureTests {
    let body = Data(#"[{"type": "trip", "data": {"value": "created", "trip_id": "t-1"}}]"#.utf8)
    let secret = "whsec-\(UUID().uuidString)"

    @Test func matchesAPublishedHMACSHA256Vector() {
        // RFC 4231, test case 2.
        let signature = HMACWebhookSignatureVerifier.signature(for: Data("what do ya want for nothing?".utf8), secret: "Jefe")
        #expect(signature == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func acceptsTheSignatureOfTheRawBody() throws {
        let logs = LogCapture()
        let verifier = HMACWebhookSignatureVerifier(secret: self.secret, logger: logs.logger())
        let signature = HMACWebhookSignatureVerifier.signature(for: self.body, secret: self.secret)
        try verifier.verify(body: self.body, signature: signature)
        try verifier.verify(body: self.body, signature: signature.uppercased())
        try verifier.verify(body: self.body, signature: "sha256=" + signature)
        try verifier.verify(body: Array(self.body), signature: " \(signature) ")
        #expect(logs.entries.isEmpty)
    }

    @Test func refusesAnAlteredBody() {
        let verifier = HMACWebhookSignatureVerifier(secret: self.secret, logger: LogCapture().logger())
        let signature = HMACWebhookSignatureVerifier.signature(for: self.body, secret: self.secret)
        var altered = self.body
        altered[altered.startIndex + 3] ^= 0x01
        let error = #expect(throws: HyperTrackAPIError.self) { try verifier.verify(body: altered, signature: signature) }
        #expect(error?.code == .invalidSignature)
        // Same JSON, re-serialized differently: a different body, so refused too.
        let reformatted = Data(#"[{"type":"trip","data":{"value":"created","trip_id":"t-1"}}]"#.utf8)
        #expect(throws: HyperTrackAPIError.self) { try verifier.verify(body: reformatted, signature: signature) }
    }

    @Test(arguments: ["flip", "wrong-secret", "truncated", "not-hex", "empty-prefix"])
    func refusesAnAlteredSignature(kind: String) {
        let verifier = HMACWebhookSignatureVerifier(secret: self.secret, acceptUnsigned: true, logger: LogCapture().logger())
        let good = HMACWebhookSignatureVerifier.signature(for: self.body, secret: self.secret)
        let bad: String
        switch kind {
        case "flip": bad = String(good.dropLast()) + (good.hasSuffix("0") ? "1" : "0")
        case "wrong-secret": bad = HMACWebhookSignatureVerifier.signature(for: self.body, secret: self.secret + "x")
        case "truncated": bad = String(good.prefix(40))
        case "not-hex": bad = String(good.dropLast(2)) + "zz"
        default: bad = "sha256="
        }
        let error = #expect(throws: HyperTrackAPIError.self) { try verifier.verify(body: self.body, signature: bad) }
        #expect(error?.code == .invalidSignature)
    }

    @Test func refusesAMissingSignatureUnlessExplicitlyAllowedAndThenWarns() throws {
        let strict = HMACWebhookSignatureVerifier(secret: self.secret, logger: LogCapture().logger())
        for missing in [nil, "", "  "] as [String?] {
            let error = #expect(throws: HyperTrackAPIError.self) { try strict.verify(body: self.body, signature: missing) }
            #expect(error?.code == .missingSignature)
        }

        let logs = LogCapture()
        let lenient = HMACWebhookSignatureVerifier(secret: self.secret, acceptUnsigned: true, logger: logs.logger())
        try lenient.verify(body: self.body, signature: nil)
        #expect(logs.entries.count == 1)
        #expect(logs.entries.first?.level == .warning)
    }

    @Test func neverShowsTheSecret() {
        let verifier: any WebhookSignatureVerifier = HMACWebhookSignatureVerifier(secret: self.secret, logger: LogCapture().logger())
        var dumped = ""
        dump(verifier, to: &dumped)
        for text in ["\(verifier)", String(reflecting: verifier), dumped] {
            #expect(!text.contains(self.secret))
        }
        #expect(hyperTrackSignatureHeader == "x-hypertrack-signature")
    }
}
