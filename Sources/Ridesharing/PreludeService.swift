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
