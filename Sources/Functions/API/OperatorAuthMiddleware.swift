import Foundation
import Hummingbird

/// Authenticates an operator's API key (`Authorization: Bearer rs_op_…`) on the operational routes: 401 without a
/// working credential, 403 for a signed-in rider or driver (their token works, but not here).
struct OperatorAuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let operators: OperatorStore
    let accounts: AccountStore

    func handle(
        _ request: Request,
        context: APIRequestContext,
        next: (Request, APIRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let token = BearerAuthMiddleware.bearer(request) else { throw APIProblem.unauthorized }
        let hash = Tokens.hash(token)
        guard let name = try await self.operators.operatorName(keyHash: hash) else {
            if try await self.accounts.caller(tokenHash: hash) != nil {
                throw APIProblem.forbidden("operational routes need an operator key (`ridesharing operators create`)")
            }
            throw APIProblem.unauthorized
        }
        var context = context
        context.operatorName = name
        return try await next(request, context)
    }
}
