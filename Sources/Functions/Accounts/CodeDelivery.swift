import Foundation

/// Where sign-in codes go: an SMS provider in production (``WebhookCodeDelivery``), the local stack's
/// ``CodeOutbox`` on a laptop and in tests. No provider is built in; `serve` without one refuses code requests
/// (503) and says so at start.
public protocol CodeDelivery: Sendable {
    /// Sends `message` to its phone. Throwing tells the caller the code was not sent (the API answers 502).
    func deliver(_ message: CodeMessage) async throws
}

/// One sign-in code on its way to a phone.
public struct CodeMessage: Sendable, Hashable, Codable {
    /// The phone, normalised (`+` and digits).
    public var phone: String
    /// Which account it signs in to: `rider` or `driver`.
    public var role: UserRole
    /// The 6-digit code.
    public var code: String
    /// When the code stops working.
    public var expiresAt: Date

    /// The text a provider sends.
    public var text: String { "Your ridesharing code is \(self.code). It expires in a few minutes." }

    /// Creates a message.
    public init(phone: String, role: UserRole, code: String, expiresAt: Date) {
        self.phone = phone
        self.role = role
        self.code = code
        self.expiresAt = expiresAt
    }

    private enum CodingKeys: String, CodingKey {
        case phone, role, code, text
        case expiresAt = "expires_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.phone = try container.decode(String.self, forKey: .phone)
        self.role = try container.decode(UserRole.self, forKey: .role)
        self.code = try container.decode(String.self, forKey: .code)
        self.expiresAt = try container.decode(Date.self, forKey: .expiresAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.phone, forKey: .phone)
        try container.encode(self.role, forKey: .role)
        try container.encode(self.code, forKey: .code)
        try container.encode(self.text, forKey: .text)
        try container.encode(self.expiresAt, forKey: .expiresAt)
    }
}
