import Logging
import PostgresNIO

extension TriggerRuntime {
    /// Runs one claimed delivery and settles it: done (in the handler's transaction), retry, dead or release.
    func process(_ delivery: Delivery, state: RunState) async {
        defer { state.finish(delivery) }
        var logger = self.logger
        logger[metadataKey: "trigger.function"] = "\(delivery.function)"
        logger[metadataKey: "trigger.event_id"] = "\(delivery.id)"
        logger[metadataKey: "trigger.attempt"] = "\(delivery.attempt)"
        let invocationLogger = logger
        RuntimeMetrics.claimed(delivery)
        let start = ContinuousClock.now
        guard let function = self.registry.function(named: delivery.function) else {
            // The claim only returns this worker's functions; reaching this is a bug, so hand it back.
            logger.error("claimed a delivery of an unknown function; releasing it")
            try? await self.store.release([delivery])
            return
        }
        let options = function.options
        let random = Double.random(in: 0..<1)
        let settlement: Settlement
        do {
            settlement = try await self.store.complete(
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
                        transaction: connection
                    )
                    try await Self.withTimeout(options.timeout) {
                        try await function.invoke(before: delivery.before, after: delivery.after, context: context)
                    }
                },
                onFailure: { error in
                    if state.isAbandoned || Task.isCancelled { return .release }
                    let text = Self.describe(error)
                    if Backoff.isExhausted(attempt: delivery.attempt, options: options) { return .dead(error: text) }
                    return .retry(
                        delay: Backoff.delay(afterAttempt: delivery.attempt, options: options, random: random),
                        error: text
                    )
                }
            )
        } catch {
            // The database failed while settling: nothing was committed; the lease expires and it runs again.
            logger.error(
                "could not settle delivery",
                metadata: ["trigger.outcome": "error", "error": "\(String(reflecting: error))"]
            )
            RuntimeMetrics.finished(delivery, outcome: "error", duration: ContinuousClock.now - start)
            return
        }
        let duration = ContinuousClock.now - start
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

    static func withTimeout(
        _ timeout: Duration,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            if try await group.next() == false {
                throw TriggerRuntimeError(.timeout, "the handler ran longer than its timeout (\(timeout))")
            }
        }
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
