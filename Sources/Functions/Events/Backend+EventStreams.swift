extension Backend {
    /// Whether a request to `path` may open a server-sent-event stream: the routes ending in `/events`
    /// (`/v1/events`, `/v1/orders/{id}/events`, `/share/{token}/events`). `OpenAPITests` checks it against the
    /// document's `text/event-stream` operations.
    ///
    /// Why the server needs to know: a stream's response is written by its connection's task for as long as it is
    /// open, and that task keeps every slab its async stack ever grew to, so the server runs such a request's
    /// responder chain in a child task whose slabs are freed when the response is returned (BackendServer's
    /// `ObservedResponder`; measured in BENCHMARKS.md, `sse-bench`). Other requests end with their response, and for
    /// them the child task would only cost its creation and a hop (a quarter of `/healthz`'s throughput).
    public static func mayOpenEventStream(path: String) -> Bool {
        path.hasSuffix("/events")
    }
}
