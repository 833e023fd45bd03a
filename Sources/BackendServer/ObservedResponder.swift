import Functions
import Hummingbird

/// Records Hummingbird's request metrics around a whole responder (routes included that were registered before any
/// middleware could be added), and runs the responder chain of a request that may open an event stream
/// (``Backend/mayOpenEventStream(path:)``) in a child task of the connection's task.
///
/// Why the child task: a Swift task keeps every slab its async stack ever grew to until the task ends (the runtime's
/// `StackAllocator` reuses emptied slabs, it never frees them earlier), and Hummingbird serves each connection from
/// one task that lives as long as the connection. The responder chain is that task's deepest moment (the metrics,
/// problem, method and bearer middlewares each hold the request and its context in a ~1 KB async frame, then the
/// router, the route and its database query through postgres-nio's pool), so every open stream kept that depth
/// allocated: heaptrack on 2,000 idle event streams counted 24 slabs, ~19 KB, per connection, the largest part of an
/// idle stream's cost. A child task's slabs are freed when it returns; the connection's task then only grows to
/// the connection loop and the body writer (~10 KB; `sse-bench`, BENCHMARKS.md, measures the whole per stream).
/// A task group's child is allocated on its own (an `async let` child borrows its parent's allocator), hence the
/// group. Other requests stay in the connection's task: for them the child task only costs its creation and a hop
/// between threads, measured with wrk at a quarter of `/healthz`'s throughput on this 2-core machine.
struct ObservedResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: RequestContext {
    typealias Context = Inner.Context
    let inner: Inner
    let middleware = MetricsMiddleware<Inner.Context>()

    @Sendable func respond(to request: Request, context: Context) async throws -> Response {
        guard Backend.mayOpenEventStream(path: request.uri.path) else {
            return try await self.observed(request, context: context)
        }
        return try await withThrowingTaskGroup(of: Response.self) { group in
            group.addTask { try await self.observed(request, context: context) }
            guard let response = try await group.next() else {
                // One task was added: `next()` returns its response or throws its error.
                throw CancellationError()
            }
            return response
        }
    }

    private func observed(_ request: Request, context: Context) async throws -> Response {
        try await self.middleware.handle(request, context: context) { request, context in
            try await self.inner.respond(to: request, context: context)
        }
    }
}
