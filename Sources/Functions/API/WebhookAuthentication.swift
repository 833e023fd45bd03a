import Crypto
import Foundation
import HTTPTypes
import HyperTrackAPI
import Logging

/// Who may post HyperTrack webhooks: a delivery must carry one of the configured path secrets (when any is
/// configured) and a valid `x-hypertrack-signature` (when a signing key is configured); see
/// ``Backend/Configuration/Webhook``.
struct WebhookAuthentication: Sendable {
    /// SHA-256 of each accepted path secret: comparing digests in constant time leaks neither a secret's content nor
    /// its length through the time a comparison takes.
    private let pathSecretDigests: [SHA256.Digest]
    private let verifier: HMACWebhookSignatureVerifier?
    private let acceptUnsigned: Bool

    init(configuration: Backend.Configuration.Webhook, logger: Logger) {
        self.pathSecretDigests = configuration.pathSecrets.map { SHA256.hash(data: Data($0.utf8)) }
        self.verifier = configuration.secret.map {
            HMACWebhookSignatureVerifier(secret: $0, acceptUnsigned: false, logger: logger)
        }
        self.acceptUnsigned = configuration.acceptUnsigned
        if configuration.acceptUnsigned {
            logger.warning("HyperTrack webhooks are accepted WITHOUT authentication (acceptUnsigned)")
        } else if !self.isConfigured {
            logger.warning(
                "no webhook path secret and no signing key are configured: every HyperTrack webhook delivery is refused",
                metadata: ["hint": "set HYPERTRACK_WEBHOOK_PATH_SECRETS and use /v1/hypertrack/webhooks/<secret>"]
            )
        }
    }

    /// Whether any check is configured (without one, nothing is authentic).
    var isConfigured: Bool { !self.pathSecretDigests.isEmpty || self.verifier != nil }

    /// Throws a 401 problem unless the delivery is authentic. With `acceptUnsigned`, a missing path secret or
    /// signature is let through (development), a wrong one never.
    /// - Parameters:
    ///   - pathSecret: The URL's secret segment, if the delivery came to `/v1/hypertrack/webhooks/{secret}`.
    ///   - body: The raw body.
    ///   - signature: The `x-hypertrack-signature` header.
    func authenticate(pathSecret: String?, body: Data, signature: String?) throws {
        guard self.isConfigured || self.acceptUnsigned else {
            throw Self.refused("no webhook authentication is configured on this server")
        }
        if let pathSecret {
            guard !self.pathSecretDigests.isEmpty else {
                throw Self.refused("this server takes webhooks at /v1/hypertrack/webhooks")
            }
            let digest = SHA256.hash(data: Data(pathSecret.utf8))
            // `==` on digests is swift-crypto's constant-time comparison; every configured secret is compared, so
            // the time does not say which one matched either.
            var matched = false
            for candidate in self.pathSecretDigests where candidate == digest { matched = true }
            guard matched else { throw Self.refused("the webhook URL's secret is not valid") }
        } else if !self.pathSecretDigests.isEmpty && !self.acceptUnsigned {
            throw Self.refused("the webhook URL must end with its secret")
        }
        if let verifier = self.verifier {
            let present = !(signature?.trimmingCharacters(in: .whitespaces).isEmpty ?? true)
            guard present || !self.acceptUnsigned else { return }
            do {
                try verifier.verify(body: body, signature: signature)
            } catch {
                throw APIProblem(.unauthorized, title: "Invalid signature", detail: "\(hyperTrackSignatureHeader): \(error)")
            }
        }
    }

    private static func refused(_ detail: String) -> APIProblem {
        APIProblem(.unauthorized, title: "Unauthenticated webhook", detail: detail)
    }
}
