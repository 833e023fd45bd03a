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
/// Timers and schedules: a due timer is promoted into the queue by a claim and then runs as a delivery (see
/// migration 0005); due schedules tick at the worker's schedule check, which runs when the next schedule is due and
/// at least every poll interval. A sleeping worker wakes for the earliest delivery, timer or schedule it runs.
///
/// Ordering: deliveries of one function for one document run one at a time, in commit order (a timer's place is
/// its promotion). A dead-lettered
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
            store: PostgresOutboxStore(
                client: client,
                channel: configuration.channel,
                logger: logger,
                synchronousCompletion: configuration.synchronousCompletion
            ),
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

    /// Runs until cancelled or gracefully shut down.
    public func run() async throws {
        try self.configuration.validate()
        let state = RunState(
            priorities: Dictionary(
                self.registry.functions.map { ($0.name, $0.options.priority) },
                uniquingKeysWith: { first, _ in first }
            )
        )
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

    /// Claims deliveries into the local queue and starts lanes to run them, until draining; then hands back what
    /// is still queued and waits for the running ones (up to the grace period).
    ///
    /// The queue is refilled as soon as it runs short while claims come back full (lanes ring when they take from
    /// it, and when they finish), so lanes never wait for a claim while a backlog is due; it holds at most
    /// `claimAhead` deliveries (about 100 ms of work), so a busy worker does not hoard work another worker could
    /// run. Under a steady stream, claims are paced (`claimInterval`), and lanes start one at a time
    /// (`laneStartDelay`).
    private func dispatch(functions: [FunctionName], state: RunState) async {
        let configuration = self.configuration
        await withDiscardingTaskGroup { group in
            var pacing = ClaimPacing(interval: configuration.claimInterval)
            var wakefulness = Wakefulness.asleep
            var nextScheduleCheck = ContinuousClock.now
            while !state.isDraining && !Task.isCancelled {
                var wait = configuration.pollInterval
                var claimAgain = false
                let target = configuration.claimAhead(completionRate: state.completionRate)
                state.lowWater = target / 2
                let room = target - state.queuedCount
                if ContinuousClock.now >= nextScheduleCheck {
                    nextScheduleCheck = await self.checkSchedules()
                }
                wait = min(wait, max(nextScheduleCheck - ContinuousClock.now, .zero))
                if !functions.isEmpty && room >= state.lowWater {
                    let claim = await self.claim(
                        room: room, functions: functions, state: state, pacing: &pacing, wakefulness: &wakefulness)
                    claimAgain = claim.again
                    if let due = claim.wait { wait = min(wait, due) }
                }
                // At most one new lane per queued delivery (with `laneStartDelay` zero every check would say yes).
                for _ in 0..<state.queuedCount {
                    let lane = state.startLaneIfBehind(
                        maximumLanes: configuration.concurrency,
                        delay: configuration.laneStartDelay
                    )
                    guard lane.start else {
                        if let due = lane.due { wait = min(wait, due) }
                        break
                    }
                    group.addTask { await self.runLane(state: state) }
                }
                if claimAgain { continue }
                if case .settling = wakefulness { wait = min(wait, configuration.claimInterval) }
                await state.doorbell.wait(timeout: wait)
            }
            if case .asleep = wakefulness {} else {
                // Writers notify again from now on; the notification wakes the other workers for what was skipped.
                _ = await self.withdrawAwake()
            }
            let queued = state.takeQueued()
            if !queued.isEmpty {
                do {
                    try await self.store.release(queued)
                } catch {
                    self.logger.warning(
                        "could not hand back queued deliveries; they run again when their leases expire",
                        metadata: ["error": "\(String(reflecting: error))", "trigger.queued": "\(queued.count)"]
                    )
                }
                state.finish(queued)
            }
            let deadline = ContinuousClock.now + configuration.shutdownGracePeriod
            while state.inFlightCount > 0 && ContinuousClock.now < deadline && !Task.isCancelled {
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

extension TriggerRuntime {
    /// Claims up to `room` deliveries into the queue (unless paced claims are not due yet), keeping the pacing and
    /// the wakefulness up to date. Returns whether to claim again at once (the claim was full), or how long the
    /// dispatcher may wait at most before the next claim is due (`nil`: until rung or polled).
    private func claim(
        room: Int,
        functions: [FunctionName],
        state: RunState,
        pacing: inout ClaimPacing,
        wakefulness: inout Wakefulness
    ) async -> (again: Bool, wait: Duration?) {
        let configuration = self.configuration
        let now = ContinuousClock.now
        if let due = pacing.nextClaim, due > now { return (false, due - now) }
        let finalClaim = await self.isSettled(wakefulness, now: now)
        do {
            let limit = min(configuration.batchSize, room)
            // Tier by tier (see `FunctionOptions.Priority`), each with what room the earlier left: one claim as
            // before where every function has one priority. A quarter of the room left is kept for the later
            // tiers: with urgent deliveries always due the others were never claimed (see
            // `FunctionOptions.Priority`); a tier whose claim was full takes what the later tiers left unused.
            let tiers = Dictionary(grouping: functions, by: state.tier(of:)).sorted { $0.key < $1.key }.map(\.value)
            var claimed: [Delivery] = []
            var full: [[FunctionName]] = []
            for (index, tier) in tiers.enumerated() where claimed.count < limit {
                let room = limit - claimed.count
                let asked = index == tiers.count - 1 ? room : room - max(1, room / 4)
                // A room of one is the later tiers'; this tier takes it if they leave it.
                guard asked > 0 else {
                    full.append(tier)
                    continue
                }
                let got = try await self.store.claim(
                    limit: asked,
                    functions: tier,
                    owner: configuration.workerID,
                    lease: configuration.leaseDuration
                )
                claimed += got
                if got.count == asked && index < tiers.count - 1 { full.append(tier) }
            }
            for tier in full where claimed.count < limit {
                claimed += try await self.store.claim(
                    limit: limit - claimed.count,
                    functions: tier,
                    owner: configuration.workerID,
                    lease: configuration.leaseDuration
                )
            }
            pacing.claimed(claimed.count, of: limit, at: now)
            state.enqueue(claimed, full: claimed.count == limit)
            wakefulness = await self.wakefulness(after: wakefulness, pacing: pacing, finalClaim: finalClaim, now: now)
            if claimed.count == limit { return (true, nil) }
            // Paced, the next claim is due whether or not anything rings (writers may skip their NOTIFY).
            if let due = pacing.nextClaim { return (false, max(due - ContinuousClock.now, .zero)) }
            // Running handlers ring when they finish; look ahead only when idle.
            if claimed.isEmpty && state.inFlightCount == 0,
                let due = try await self.store.secondsUntilNextDue(functions: functions)
            {
                return (false, .nanoseconds(Int64(max(due, 0) * 1e9)))
            }
        } catch {
            self.logger.error("claim failed", metadata: ["error": "\(String(reflecting: error))"])
        }
        return (false, nil)
    }
}

extension TriggerRuntime {
    /// Ticks the due schedules of this worker's scheduled functions and records the pending timers; returns when
    /// to check again: when the next schedule is due, and at least every poll interval (a schedule installed or
    /// changed meanwhile may be due sooner than the one this worker knew). Nothing to do without scheduled or
    /// timer functions.
    private func checkSchedules() async -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        let poll = now + self.configuration.pollInterval
        var schedules: [FunctionName: Schedule] = [:]
        var timerFunctions: [FunctionName] = []
        for function in self.registry.functions {
            switch function.kind {
            case .rows: break
            case .timer: timerFunctions.append(function.name)
            case .schedule(let schedule): schedules[function.name] = schedule
            }
        }
        guard !schedules.isEmpty || !timerFunctions.isEmpty else { return now + .seconds(3600) }
        do {
            let check = try await self.store.tickSchedules(schedules, timerFunctions: timerFunctions)
            RuntimeMetrics.pendingTimers(check.pendingTimers)
            for function in check.ticked {
                RuntimeMetrics.ticked(function)
                self.logger.debug("schedule ticked", metadata: ["trigger.function": "\(function)"])
            }
            guard let seconds = check.secondsUntilNext else { return poll }
            // A schedule due now but skipped (another worker holds its row) is looked at again shortly.
            return min(poll, now + .milliseconds(Int64(max(seconds, 0.05) * 1000)))
        } catch {
            self.logger.error("schedule check failed", metadata: ["error": "\(String(reflecting: error))"])
            return poll
        }
    }
}

extension TriggerRuntime: CustomStringConvertible {
    public var description: String {
        "TriggerRuntime(worker: \(self.configuration.workerID), functions: \(self.registry.functions.count))"
    }
}
