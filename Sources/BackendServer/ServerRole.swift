/// What one backend process runs.
public enum ServerRole: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The trigger worker and the HTTP API (the default).
    case all
    /// The trigger worker; its HTTP server answers only `/healthz`, `/readyz` and `/metrics`.
    case worker
    /// The HTTP API (`/v1`, `/healthz`, `/readyz`, `/metrics`) without the worker.
    case api

    /// Whether the role runs the trigger worker.
    public var runsWorker: Bool { self != .api }
    /// Whether the role serves `/v1`.
    public var runsAPI: Bool { self != .worker }
    public var description: String { self.rawValue }
}
