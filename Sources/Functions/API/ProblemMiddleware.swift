import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO

/// Turns every error into a JSON problem body: our `APIProblem`s as they are, Hummingbird's `HTTPError`s (unknown
/// route, body too large) with their status, and anything else as a 500 that reveals nothing (logged in full).
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let problem as APIProblem {
            return try problem.response(from: request, context: context)
        } catch let error as HTTPError {
            let detail = error.body ?? "\(request.method) \(request.uri.path): \(error.status.reasonPhrase)"
            return try APIProblem(error.status, detail: detail).response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            return try APIProblem(error.status, detail: error.status.reasonPhrase).response(
                from: request,
                context: context
            )
        } catch {
            context.logger.error(
                "request failed",
                metadata: ["error.type": "\(type(of: error))", "error": "\(String(reflecting: error))"]
            )
            return try APIProblem(.internalServerError, detail: "the request could not be completed").response(
                from: request,
                context: context
            )
        }
    }
}
