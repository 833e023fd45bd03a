import Logging
import PostgresNIO
import ServiceLifecycle

/// The worker: runs the functions of a `FunctionRegistry` for the deliveries its capture triggers record.
///
/// Run it in a `ServiceGroup` after its `PostgresClient`. Prepare the database first (migrations and triggers,
/// `TriggerRuntime.prepare`). On graceful shutdown it stops claiming, lets running handlers finish within
/// `shutdownGracePeriod`, then cancels the rest and hands their deliveries back at once.
///
/// ```swift
/// try await TriggerRuntime.prepare(client: client, registry: registry, logger: logger)
/// let runtime = TriggerRuntime(client: client, registry: registry, logger: logger)
/// let group = ServiceGroup(services: [client, runtime], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// Ordering: deliveries of one function for one document run one at a time, in commit order. A dead-lettered
/// delivery no longer holds back the later ones of its document (they run; `events retry` replays the dead one
/// after them). Timeouts cancel the handler's task: a handler that ignores cancellation runs on until it returns.
public struct TriggerRuntime: Service {
    let registry: FunctionRegistry
    let configuration: Configuration
    let logger: Logger
    let store: any OutboxStore
    let listenClient: PostgresClient?

    /// Creates a worker.
    /// - Parameters:
    ///   - client: The client (run it before the worker); handlers' transactions and the LISTEN connection come
    ///     from its pool.
    ///   - registry: The functions to run.
    ///   - configuration: Concurrency, leases, polling, shutdown.
    ///   - logger: The worker's logger; each invocation's logger derives from it.
    public init(
        client: PostgresClient,
        registry: FunctionRegistry,
        configuration: Configuration = Configuration(),
        logger: Logger
    ) {
        self.init(
            store: PostgresOutboxStore(client: client, channel: configuration.channel, logger: logger),
            registry: registry,
            configuration: configuration,
            logger: logger,
            listenClient: configuration.listen ? client : nil
        )
    }

    /// Creates a worker over any store (unit tests use an in-memory one).
    package init(
        store: any OutboxStore,
        registry: FunctionRegistry,
        configuration: Configuration,
        logger: Logger,
        listenClient: PostgresClient? = nil
    ) {
        self.store = store
        self.registry = registry
        self.configuration = configuration
        self.logger = logger
        self.listenClient = listenClient
    }

    /// Applies the runtime's migrations followed by `migrations`, then installs the capture triggers of `registry`.
    /// - Parameters:
    ///   - client: A running client.
    ///   - registry: The functions whose triggers to install.
    ///   - migrations: The application's migrations (applied after the runtime's).
    ///   - channel: The NOTIFY channel the workers listen on.
    ///   - logger: Logs applied migrations.
    public static func prepare(
        client: PostgresClient,
        registry: FunctionRegistry,
        migrations: [Migration] = [],
        channel: String = Configuration.defaultChannel,
        logger: Logger
    ) async throws {
        try await Migrator(client: client, logger: logger).migrate(Self.migrations + migrations)
        try await TriggerInstaller(client: client, logger: logger).install(registry, channel: channel)
    }

    /// Runs until cancelled or gracefully shut down.
    public func run() async throws {
        try self.configuration.validate()
        let state = RunState()
        let functions = self.registry.functions.map(\.name)
        self.logger.info(
            "trigger runtime started",
            metadata: [
                "trigger.worker": "\(self.configuration.workerID)", "trigger.functions": "\(functions.count)",
                "trigger.concurrency": "\(self.configuration.concurrency)",
            ]
        )
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { background in
                if let client = self.listenClient {
                    background.addTask { await self.listen(client: client, state: state) }
                }
                background.addTask { await self.renewLeases(state: state) }
                background.addTask { await self.prune() }
                await self.dispatch(functions: functions, state: state)
                background.cancelAll()
            }
        } onGracefulShutdown: {
            state.beginDraining()
        }
        self.logger.info("trigger runtime stopped", metadata: ["trigger.worker": "\(self.configuration.workerID)"])
    }

    /// Claims and runs deliveries until draining, then waits for the running ones (up to the grace period).
    private func dispatch(functions: [FunctionName], state: RunState) async {
        let configuration = self.configuration
        let lowWater = max(1, min(configuration.batchSize, configuration.concurrency) / 2)
        await withDiscardingTaskGroup { group in
            while !state.isDraining && !Task.isCancelled {
                var wait = configuration.pollInterval
                let running = state.inFlightCount
                let free = configuration.concurrency - running
                if !functions.isEmpty && free > 0 && (free >= lowWater || running == 0) {
                    do {
                        let limit = min(configuration.batchSize, free)
                        let claimed = try await self.store.claim(
                            limit: limit,
                            functions: functions,
                            owner: configuration.workerID,
                            lease: configuration.leaseDuration
                        )
                        for delivery in claimed {
                            state.start(delivery)
                            group.addTask { await self.process(delivery, state: state) }
                        }
                        if claimed.count == limit { continue }
                        if let due = try await self.store.secondsUntilNextDue(functions: functions) {
                            wait = min(wait, .nanoseconds(Int64(max(due, 0) * 1e9)))
                        }
                    } catch {
                        self.logger.error("claim failed", metadata: ["error": "\(String(reflecting: error))"])
                    }
                }
                await state.doorbell.wait(timeout: wait)
            }
            let deadline = ContinuousClock.now + configuration.shutdownGracePeriod
            while state.inFlightCount > 0 && ContinuousClock.now < deadline {
                await state.doorbell.wait(timeout: deadline - ContinuousClock.now)
            }
            let left = state.inFlightCount
            if left > 0 {
                self.logger.warning(
                    "grace period over: cancelling running handlers and handing their deliveries back",
                    metadata: ["trigger.running": "\(left)"]
                )
                state.abandon()
                group.cancelAll()
            }
        }
    }
}

extension TriggerRuntime: CustomStringConvertible {
    public var description: String {
        "TriggerRuntime(worker: \(self.configuration.workerID), functions: \(self.registry.functions.count))"
    }
}
