import Foundation
import Logging
import PostgresNIO
import Synchronization

extension TriggerRuntime {
    /// One lane: takes queued deliveries and runs them, several per transaction while more are queued, until the
    /// queue is empty.
    func runLane(state: RunState) async {
        repeat {
            while let first = state.next() {
                await self.runTransaction(first: first, state: state)
            }
        } while !state.endLane()
    }

    /// Runs `first`, then further queued deliveries, in one transaction: up to `transactionBatchSize` of them while
    /// the transaction is younger than `transactionWindow`; then commits and reports each settlement.
    private func runTransaction(first: Delivery, state: RunState) async {
        let configuration = self.configuration
        var taken = [first]
        var results: [(delivery: Delivery, settlement: Settlement, duration: Duration)] = []
        let opened = ContinuousClock.now
        do {
            try await self.store.withTransaction(batched: true) { transaction in
                var delivery = first
                while true {
                    let start = ContinuousClock.now
                    let settlement = try await self.handle(delivery, in: transaction, state: state)
                    results.append((delivery, settlement, ContinuousClock.now - start))
                    // A high-priority delivery commits as soon as it ran: batching more behind it would make it
                    // wait for them (a slow HyperTrack call among them).
                    guard results.count < configuration.transactionBatchSize, !state.isUrgent(delivery),
                        ContinuousClock.now - opened < configuration.transactionWindow,
                        !state.isAbandoned, !Task.isCancelled,
                        let next = state.next()
                    else { break }
                    taken.append(next)
                    delivery = next
                }
                state.committing(taken)
            }
        } catch let lost as BatchLeaseLost {
            // Rolled back: run each delivery again in a transaction of its own, where its own fence decides.
            state.notCommitting(taken)
            self.logger.warning(
                "a lease was taken over during a batched transaction; running its deliveries one by one",
                metadata: ["trigger.lost": "\(lost.ids.sorted())", "trigger.batch": "\(taken.count)"]
            )
            for delivery in taken {
                await self.runAlone(delivery, state: state)
            }
            state.finish(taken)
            return
        } catch {
            self.reportUnsettled(taken, error: error, since: opened)
            state.finish(taken)
            return
        }
        state.finish(taken)
        for result in results {
            self.report(result.delivery, result.settlement, duration: result.duration)
        }
    }

    /// Runs one delivery in a transaction of its own, marked done at once (fenced on its own).
    private func runAlone(_ delivery: Delivery, state: RunState) async {
        let start = ContinuousClock.now
        do {
            let settlement = try await self.store.withTransaction(batched: false) { transaction in
                let settlement = try await self.handle(delivery, in: transaction, state: state)
                state.committing([delivery])
                return settlement
            }
            self.report(delivery, settlement, duration: ContinuousClock.now - start)
        } catch {
            self.reportUnsettled([delivery], error: error, since: start)
        }
    }

    /// Nothing of the transaction committed: the leases expire and the deliveries run again.
    private func reportUnsettled(_ deliveries: [Delivery], error: any Error, since start: ContinuousClock.Instant) {
        for delivery in deliveries {
            self.logger(for: delivery).error(
                "could not settle delivery",
                metadata: ["trigger.outcome": "error", "error": "\(String(reflecting: error))"]
            )
            RuntimeMetrics.finished(delivery, outcome: "error", duration: ContinuousClock.now - start)
        }
    }

    /// Runs one delivery's handler in `transaction` and settles it there: done, retry, dead or release.
    private func handle(_ delivery: Delivery, in transaction: any OutboxTransaction, state: RunState) async throws
        -> Settlement
    {
        RuntimeMetrics.claimed(delivery)
        guard let function = self.registry.function(named: delivery.function) else {
            // The claim only returns this worker's functions; reaching this is a bug, so hand it back.
            self.logger(for: delivery).error("claimed a delivery of an unknown function; releasing it")
            return try await transaction.run(
                delivery,
                body: { _ in throw TriggerRuntimeError(.functionNotRegistered, "\(delivery.function)") },
                onFailure: { _ in .release }
            )
        }
        let invocationLogger = self.logger(for: delivery)
        let options = function.options
        let random = Double.random(in: 0..<1)
        return try await transaction.run(
            delivery,
            body: { connection in
                let context = FunctionContext(
                    eventID: delivery.id,
                    functionName: delivery.function,
                    operation: delivery.operation,
                    table: delivery.table,
                    documentKey: delivery.documentKey,
                    commitTime: delivery.committedAt,
                    attempt: delivery.attempt,
                    logger: invocationLogger,
                    transaction: connection,
                    timer: delivery.operation == .timer
                        ? TimerInfo(key: delivery.timerKey ?? "", dueAt: delivery.committedAt) : nil,
                    tick: delivery.operation == .tick ? Self.tick(of: delivery) : nil
                )
                try await Self.withTimeout(options.timeout) {
                    try await function.invoke(before: delivery.before, after: delivery.after, context: context)
                }
            },
            onFailure: { error in
                if state.isAbandoned || Task.isCancelled { return .release }
                let text = Self.describe(error)
                if Backoff.isExhausted(attempt: delivery.attempt, options: options) { return .dead(error: text) }
                var delay = Backoff.delay(afterAttempt: delivery.attempt, options: options, random: random)
                if let hint = (error as? any RetryAfterHinting)?.retryAfter { delay = max(delay, hint) }
                return .retry(delay: delay, error: text)
            }
        )
    }

    /// The worker's logger stamped with the delivery (one metadata update: a stream handler re-renders its
    /// metadata on every change).
    private func logger(for delivery: Delivery) -> Logger {
        var logger = self.logger
        var metadata = logger.handler.metadata
        metadata["trigger.function"] = .string(delivery.function.rawValue)
        metadata["trigger.event_id"] = .string(String(delivery.id))
        metadata["trigger.attempt"] = .string(String(delivery.attempt))
        logger.handler.metadata = metadata
        return logger
    }

    /// Logs and counts a settlement once its transaction committed.
    private func report(_ delivery: Delivery, _ settlement: Settlement, duration: Duration) {
        if settlement == .done && self.logger.logLevel > .debug {
            RuntimeMetrics.finished(delivery, outcome: "handled", duration: duration)
            return
        }
        let logger = self.logger(for: delivery)
        var metadata: Logger.Metadata = ["trigger.duration_ms": "\(Self.milliseconds(duration))"]
        switch settlement {
        case .done:
            metadata["trigger.outcome"] = "handled"
            logger.debug("handled", metadata: metadata)
            RuntimeMetrics.finished(delivery, outcome: "handled", duration: duration)
        case .retry(let delay, let error):
            metadata["trigger.outcome"] = "retried"
            metadata["trigger.retry_in_ms"] = "\(Self.milliseconds(delay))"
            metadata["error"] = "\(error)"
            logger.warning("handler failed; will retry", metadata: metadata)
            RuntimeMetrics.finished(delivery, outcome: "retried", duration: duration)
        case .dead(let error):
            metadata["trigger.outcome"] = "dead"
            metadata["error"] = "\(error)"
            logger.error("handler failed on its last attempt; dead-lettered", metadata: metadata)
            RuntimeMetrics.finished(delivery, outcome: "dead", duration: duration)
        case .release:
            metadata["trigger.outcome"] = "released"
            logger.info("handed back unfinished at shutdown", metadata: metadata)
            RuntimeMetrics.finished(delivery, outcome: "released", duration: duration)
        case .leaseLost:
            metadata["trigger.outcome"] = "lease_lost"
            logger.warning("lease was taken over by another worker; completion refused", metadata: metadata)
            RuntimeMetrics.finished(delivery, outcome: "lease_lost", duration: duration)
        }
    }

    /// Runs `body`, cancelling it once `timeout` has passed; then throws `timeout` (after `body` returned, so a
    /// handler that ignores cancellation still finishes before its transaction moves on).
    ///
    /// One task and one timer on a NIO event loop per call: a task group with a sleeping child cost two tasks and
    /// a dispatch timer per delivery.
    static func withTimeout(
        _ timeout: Duration,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        let timedOut = Atomic<Bool>(false)
        let task = Task { try await body() }
        let timer = NIOSingletons.posixEventLoopGroup.any().scheduleTask(in: .init(timeout)) {
            timedOut.store(true, ordering: .relaxed)
            task.cancel()
        }
        defer { timer.cancel() }
        let outcome = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        if timedOut.load(ordering: .relaxed) {
            throw TriggerRuntimeError(.timeout, "the handler ran longer than its timeout (\(timeout))")
        }
        try outcome.get()
    }

    /// A tick's delivery: `committed_at` is its (earliest) instant, `new_row` says how many ticks it stands for.
    static func tick(of delivery: Delivery) -> ScheduleTick {
        let coalesced = delivery.after.flatMap { try? JSONDecoder().decode(ScheduleTick.Coalesced.self, from: $0) }
        return ScheduleTick(scheduledAt: delivery.committedAt, coalesced: coalesced?.coalesced ?? 1)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? TriggerRuntimeError { return error.description }
        if error is PSQLError { return String(reflecting: error) }
        return String(describing: error)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
