import Crypto
import Foundation
import Hummingbird

/// Authenticates `Authorization: Bearer <token>` against the hashed tokens; 401 without a valid one.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let store: APIStore

    func handle(
        _ request: Request,
        context: APIRequestContext,
        next: (Request, APIRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw APIProblem.unauthorized
        }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, let caller = try await self.store.caller(tokenHash: Tokens.hash(token)) else {
            throw APIProblem.unauthorized
        }
        var context = context
        context.caller = caller
        return try await next(request, context)
    }
}

/// API tokens: random, shown once, stored as SHA-256 hex.
enum Tokens {
    /// A new token: 32 random bytes, base64url without padding.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "rs_"
            + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The stored form of a token.
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
