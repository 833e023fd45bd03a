import Logging
import ServiceLifecycle

extension ServiceGroup {
    /// Runs `services` in a group (no signals) while `body` runs, then shuts the group down gracefully (services stop
    /// in reverse order) and waits for it. If `body` throws, the group is shut down and cancelled, and the error is
    /// rethrown.
    ///
    /// The package's one "these services run during this" scope: for the harnesses of tests, the benchmark, and
    /// commands that need a running database client for one job (a process that serves runs one `ServiceGroup`
    /// with signals instead).
    package static func withRunning<T: Sendable>(
        _ services: [any Service],
        logger: Logger,
        _ body: () async throws -> T
    ) async throws -> T {
        try await self.withRunning(logger: logger, notReady: CancellationError()) { ready in
            ready(())
            return services
        } _: { () in
            try await body()
        }
    }

    /// Runs the services `make` returns in a group (no signals), waits until one of them calls `ready`, runs `body`
    /// with the value it passed, then shuts the group down gracefully and waits for it. If `body` throws, the group
    /// is shut down and cancelled, and the error is rethrown.
    ///
    /// ```swift
    /// try await ServiceGroup.withRunning(logger: logger, notReady: StackError()) { ready in
    ///     [client, LocalStack(client: client, configuration: configuration, logger: logger) { ready($0) }]
    /// } _: { running in
    ///     …
    /// }
    /// ```
    /// - Parameters:
    ///   - logger: The group's logger.
    ///   - notReady: Thrown when the group stops (without an error) before `ready` was called.
    ///   - make: Returns the services in start order; one of them calls `ready` once the others may be used.
    ///   - body: Runs while the services run.
    package static func withRunning<Ready: Sendable, T: Sendable>(
        logger: Logger,
        notReady: @autoclosure @escaping @Sendable () -> any Error,
        services make: (_ ready: @escaping @Sendable (Ready) -> Void) throws -> [any Service],
        _ body: (Ready) async throws -> T
    ) async throws -> T {
        let (ready, continuation) = AsyncStream<Ready>.makeStream()
        let services = try make { value in
            continuation.yield(value)
            continuation.finish()
        }
        let group = ServiceGroup(
            services: services,
            gracefulShutdownSignals: [],
            cancellationSignals: [],
            logger: logger
        )
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { continuation.finish() }
                try await group.run()
            }
            var iterator = ready.makeAsyncIterator()
            guard let value = await iterator.next() else {
                try await tasks.waitForAll()
                throw notReady()
            }
            let result: T
            do {
                result = try await body(value)
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
