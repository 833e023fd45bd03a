import Foundation
import Hummingbird
import Logging

/// The request context of the apps' API: Hummingbird's core context plus the authenticated caller.
public struct APIRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The caller, once `BearerAuthMiddleware` has authenticated them.
    public var caller: Caller?
    /// The operator, once `OperatorAuthMiddleware` has authenticated their key.
    public var operatorName: String?

    /// Creates a context for a request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.caller = nil
        self.operatorName = nil
    }

    /// Dates are written as ISO 8601.
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// The API's request bodies are small: 64 KiB at most.
    public var maxUploadSize: Int { 64 * 1024 }

    /// The authenticated caller, or 401.
    func requireCaller() throws -> Caller {
        guard let caller = self.caller else { throw APIProblem.unauthorized }
        return caller
    }
}

/// An authenticated user.
public struct Caller: Sendable, Hashable {
    /// The user's id.
    public var id: UUID
    /// Rider or driver.
    public var role: UserRole
    /// The session the access token belongs to; `nil` for a token issued before sessions existed.
    public var sessionID: UUID? = nil
    /// The stored form of the presented token (what sign-out of a pre-session token deletes).
    var tokenHash: String? = nil
}
