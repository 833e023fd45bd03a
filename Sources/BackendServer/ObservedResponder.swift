import Hummingbird

/// Records Hummingbird's request metrics around a whole responder (routes included that were registered before any
/// middleware could be added).
struct ObservedResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: RequestContext {
    typealias Context = Inner.Context
    let inner: Inner
    let middleware = MetricsMiddleware<Inner.Context>()

    @Sendable func respond(to request: Request, context: Context) async throws -> Response {
        try await self.middleware.handle(request, context: context) { request, context in
            try await self.inner.respond(to: request, context: context)
        }
    }
}
