import HTTPTypes
import Hummingbird

/// Answers a request whose path is routed but whose method is not with `405 Method Not Allowed` and an `Allow`
/// header listing the methods the path has (RFC 9110 §15.5.6), where Hummingbird's router answers 404.
///
/// The table is the router's own (`Router.routes`), read once the last route is added, so it cannot disagree with
/// the router; ``Backend/answerWrongMethods(on:)`` installs it.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: [(path: RouterPath, method: HTTPRequest.Method)]

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        let allowed = self.routes.filter { Self.matches($0.path, segments) }.map(\.method)
        guard !allowed.isEmpty, !allowed.contains(request.method) else {
            return try await next(request, context)
        }
        let sorted = Set(allowed).sorted { $0.rawValue < $1.rawValue }
        throw APIProblem.methodNotAllowed(request.method, path: request.uri.path, allowed: sorted)
    }

    static func matches(_ path: RouterPath, _ segments: [Substring]) -> Bool {
        guard path.components.count == segments.count else { return false }
        return zip(path.components, segments).allSatisfy { element, segment in element ~= segment }
    }
}

extension Backend {
    /// Makes `router` answer a known path with the wrong method 405 with `Allow` instead of 404. Call it after the
    /// last route is added: the table is the router's routes at that moment, and a middleware added last wraps only
    /// the router's not-found responder (every route before it keeps its own chain), so routed requests pay nothing.
    /// - Parameter router: The finished router.
    public static func answerWrongMethods(on router: Router<APIRequestContext>) {
        router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes.map { ($0.path, $0.method) }))
    }
}
