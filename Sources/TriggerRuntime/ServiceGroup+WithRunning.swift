import Logging
import ServiceLifecycle

extension ServiceGroup {
    /// Runs `services` in a group (no signals) while `body` runs, then shuts the group down gracefully (services stop
    /// in reverse order) and waits for it. If `body` throws, the group is shut down and cancelled, and the error is
    /// rethrown.
    ///
    /// The scope of the test harnesses and the benchmark: "these workers (and their pools) run during this".
    package static func withRunning<T: Sendable>(
        _ services: [any Service],
        logger: Logger,
        _ body: () async throws -> T
    ) async throws -> T {
        let group = ServiceGroup(services: services, gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let result: T
            do {
                result = try await body()
            } catch {
                await group.triggerGracefulShutdown()
                tasks.cancelAll()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        }
    }
}
