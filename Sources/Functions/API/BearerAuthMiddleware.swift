import Foundation
import Hummingbird

/// Authenticates `Authorization: Bearer <token>`: an access token of a live session, or (until they expire) a token
/// issued before sign-in by code existed; 401 without a valid one.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let accounts: AccountStore

    func handle(
        _ request: Request,
        context: APIRequestContext,
        next: (Request, APIRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let token = Self.bearer(request) else { throw APIProblem.unauthorized }
        guard let caller = try await self.accounts.caller(tokenHash: Tokens.hash(token)) else {
            throw APIProblem.unauthorized
        }
        var context = context
        context.caller = caller
        return try await next(request, context)
    }

    /// The bearer token of `request`, if it has a non-empty one.
    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return nil
        }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
