import ServiceLifecycle

/// Runs `prelude` (migrations) before the wrapped service, inside the group, so the client is already running.
struct PreludeService<Wrapped: Service>: Service, CustomStringConvertible {
    let service: Wrapped
    let prelude: @Sendable () async throws -> Void

    init(_ service: Wrapped, prelude: @escaping @Sendable () async throws -> Void) {
        self.service = service
        self.prelude = prelude
    }

    func run() async throws {
        try await self.prelude()
        try await self.service.run()
    }

    var description: String { "\(self.service)" }
}

/// Keeps a slot in the group until graceful shutdown (runs the prelude of a role without a worker).
struct IdleService: Service, CustomStringConvertible {
    func run() async throws {
        try? await gracefulShutdown()
    }

    var description: String { "IdleService" }
}
