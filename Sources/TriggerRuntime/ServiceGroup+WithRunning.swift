import Logging
import ServiceLifecycle

extension ServiceGroup {
    /// Runs `services` in a group (no signals) while `body` runs, then shuts the group down gracefully (services stop
    /// in reverse order) and waits for it, also when `body` throws (the error is then rethrown). A service still
    /// running ``gracefulShutdownLimit`` after the shutdown began is cancelled.
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
    /// with the value it passed, then shuts the group down gracefully and waits for it, also when `body` throws (the
    /// error is then rethrown). A service still running ``gracefulShutdownLimit`` after the shutdown began is
    /// cancelled.
    ///
    /// Why graceful when `body` threw: cancelling a Hummingbird server while a connection is being accepted crashes
    /// the process in NIO (`Deinited NIOAsyncWriter without calling finish()`, apple/swift-nio#3481: an accepted
    /// channel left in the server's stream is never closed). The test process crashed so once in CI (13th
    /// session), in the window between this scope's graceful shutdown and its immediate cancellation.
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
        var configuration = ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = Self.gracefulShutdownLimit
        let group = ServiceGroup(configuration: configuration)
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
                do {
                    try await tasks.waitForAll()
                } catch let stopping {
                    // The body's error is the one rethrown; the services' own is logged, not lost.
                    logger.warning(
                        "services failed while stopping after their scope threw",
                        metadata: ["error": "\(String(reflecting: stopping))"]
                    )
                }
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        }
    }

    /// How long ``withRunning(logger:notReady:services:_:)`` lets its services stop gracefully before the group
    /// cancels them: long enough for a server to finish its requests in a crawling test suite, short enough that a
    /// service that ignores the shutdown costs a test seconds, not its time limit.
    package static let gracefulShutdownLimit: Duration = .seconds(30)
}
