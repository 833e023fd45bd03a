import Logging
import ServiceLifecycle

/// Runs services for the duration of a scope: the shape of every `withRunning` of the backend (the composition's,
/// the local stack's).
public enum ServiceScope {
    /// Runs the services `make` returns in a `ServiceGroup` (no signals), waits until one of them calls `ready`,
    /// runs `body` with the value it passed, then shuts the group down gracefully (in reverse start order) and
    /// waits for it, also when `body` throws.
    /// - Parameters:
    ///   - notReady: Thrown when the group stops before `ready` was called.
    ///   - logger: The group's logger.
    ///   - make: Returns the services in start order; they call `ready` once they are ready.
    ///   - body: Runs while the services run.
    public static func withRunning<Ready: Sendable, T: Sendable>(
        notReady: @autoclosure @escaping @Sendable () -> any Error,
        logger: Logger,
        services make: (_ ready: @escaping @Sendable (Ready) -> Void) throws -> [any Service],
        _ body: @escaping @Sendable (Ready) async throws -> T
    ) async throws -> T {
        let (ready, continuation) = AsyncStream<Ready>.makeStream()
        let services = try make { value in
            continuation.yield(value)
            continuation.finish()
        }
        let group = ServiceGroup(services: services, gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                defer { continuation.finish() }
                try await group.run()
                return nil
            }
            var iterator = ready.makeAsyncIterator()
            guard let value = await iterator.next() else {
                while try await tasks.next() != nil {}
                throw notReady()
            }
            do {
                let result = try await body(value)
                await group.triggerGracefulShutdown()
                while try await tasks.next() != nil {}
                return result
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }
}
