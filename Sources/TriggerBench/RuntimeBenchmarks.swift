import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization
import TriggerRuntime

/// The trigger runtime's own measurements: latency, backlog drain, steady load, memory.
enum RuntimeBenchmarks {
    /// The benchmark table's row as the function sees it.
    struct BenchRow: Decodable, Sendable {
        var id: Int
        var v: Int64
        var sent_ns: Int64
    }

    static let function: FunctionName = "bench_noop"

    static func run(
        database: BenchDatabase,
        worker: TriggerRuntime.Configuration,
        rate: Int,
        latencyDuration: Duration,
        backlog: Int,
        throughputDuration: Duration,
        repeats: Int,
        parts: Set<String>,
        report: inout Report
    ) async throws {
        let tally = Tally()
        var registry = FunctionRegistry()
        registry.register(Self.function, on: .update("bench_rows"), as: BenchRow.self) { change, _ in
            tally.record(sentNanoseconds: change.after?.sent_ns ?? 0)
        }
        try await Self.prepare(database, registry: registry)
        let logger = database.logger

        if parts.contains("latency") {
            logger.info("runtime: latency at \(rate)/s")
            tally.reset()
            let total = Int(Double(rate) * latencyDuration.seconds)
            var acknowledged: [Int64: Int64] = [:]
            acknowledged.reserveCapacity(total)
            try await Self.withWorkers(1, database: database, registry: registry, configuration: worker) {
                try await database.withConnection { connection in
                    try await Pacer.run(rate: rate, count: total) {
                        let sent = try await Self.touch(connection, id: Int.random(in: 1...1000), logger: logger)
                        acknowledged[sent] = monotonicNanoseconds()
                    }
                }
                try await tally.wait(for: total, timeout: .seconds(60))
            }
            report.runtimeLatency = LatencySummary(nanoseconds: tally.latencies())
            report.runtimeLatencyFromAcknowledgement = LatencySummary(
                nanoseconds: tally.latencies(fromAcknowledgements: acknowledged)
            )
        }

        for workers in [1, 2] where parts.contains("drain") {
            logger.info("runtime: backlog drain with \(workers) worker(s)")
            for _ in 0..<max(1, repeats) {
                try await Self.clearQueue(database)
                try await Self.fillBacklog(database, events: backlog)
                logger.info("runtime: backlog of \(backlog) captured; draining with \(workers) worker(s)")
                tally.reset()
                let start = monotonicNanoseconds()
                try await Self.withWorkers(workers, database: database, registry: registry, configuration: worker) {
                    try await tally.wait(for: backlog, timeout: .seconds(600))
                }
                let rate = Double(backlog) / (Double(monotonicNanoseconds() - start) / 1e9)
                if workers == 1 {
                    report.drainOneWorker.append(rate)
                } else {
                    report.drainTwoWorkers.append(rate)
                }
            }
        }

        var lags: [Int64] = []
        for _ in 0..<(parts.contains("steady") ? max(1, repeats) : 0) {
            // The machine's speed drifts over minutes: each steady run gets its own capture-only run just before it.
            logger.info("runtime: capture-only rate, then steady load")
            report.steadyPairedCaptureOnly.append(
                try await Floors.updateRate(database, withCapture: true, writers: 2, duration: throughputDuration)
            )
            try await Self.clearQueue(database)
            tally.reset()
            try await Self.withWorkers(1, database: database, registry: registry, configuration: worker) {
                let start = monotonicNanoseconds()
                let produced = try await Floors.hammer(database, writers: 2, duration: throughputDuration) {
                    connection,
                    writer,
                    iteration in
                    try await Self.touch(connection, id: writer * 500 + iteration % 500 + 1, logger: logger)
                }
                let handled = tally.count
                let seconds = Double(monotonicNanoseconds() - start) / 1e9
                report.steadyProduced.append(produced)
                report.steadyHandled.append(Double(handled) / seconds)
                lags += tally.latencies()
            }
        }
        if !lags.isEmpty { report.steadyLag = LatencySummary(nanoseconds: lags) }
        report.workerMemory = residentMemoryMiB()
        report.notes.append(
            "Runtime rows use concurrency \(worker.concurrency), claim batch \(worker.batchSize), up to "
                + "\(worker.transactionBatchSize) deliveries per transaction (each in its own savepoint, marked done in "
                + "that transaction), claims under a steady stream at least \(worker.claimInterval.seconds * 1000) ms "
                + "apart, lanes started \(worker.laneStartDelay.seconds * 1000) ms apart while deliveries wait, "
                + "synchronous completion \(worker.synchronousCompletion ? "on" : "off"), LISTEN on, and a no-op handler "
                + "that decodes the row."
        )
        report.notes.append(
            "Latency is measured on one monotonic clock in one process, to the start of the handler, from two points: "
                + "the producer's receipt of its commit acknowledgement (\"from the commit\"; a handler may start "
                + "before the acknowledgement arrives, which counts as negative), and just before the producer sends its "
                + "UPDATE (autocommit), which adds the UPDATE's own execution, its capture and its WAL flush. The NOTIFY "
                + "floor is measured from just before the `pg_notify` is sent (a notification alone writes no WAL)."
        )
        report.notes.append(
            "Backlog: \(backlog) deliveries on 10,000 documents (10 per document, kept in commit order), captured while no "
                + "worker runs. Steady load: 2 producer connections update 1,000 rows as fast as they can while 1 worker handles."
        )
    }

    static func prepare(_ database: BenchDatabase, registry: FunctionRegistry) async throws {
        let client = PostgresClient(
            configuration: database.clientConfiguration,
            backgroundLogger: database.logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await client.query(
                "CREATE TABLE IF NOT EXISTS bench_rows (id int PRIMARY KEY, v bigint NOT NULL DEFAULT 0, sent_ns bigint NOT NULL DEFAULT 0)",
                logger: database.logger
            )
            try await client.query(
                "INSERT INTO bench_rows (id) SELECT generate_series(1, 10000) ON CONFLICT DO NOTHING",
                logger: database.logger
            )
            try await TriggerRuntime.prepare(client: client, registry: registry, logger: database.logger)
            group.cancelAll()
        }
    }

    /// Updates row `id` (one autocommit UPDATE, captured by the runtime's trigger); returns the send time it
    /// carries. It returns once the commit is acknowledged.
    @discardableResult
    static func touch(_ connection: PostgresConnection, id: Int, logger: Logger) async throws -> Int64 {
        let sent = monotonicNanoseconds()
        try await connection.query(
            "UPDATE bench_rows SET v = v + 1, sent_ns = \(sent) WHERE id = \(id)",
            logger: logger
        )
        return sent
    }

    static func clearQueue(_ database: BenchDatabase) async throws {
        try await database.withConnection { connection in
            try await connection.query(
                "TRUNCATE trigger_runtime.deliveries, trigger_runtime.done",
                logger: database.logger
            )
            try await connection.query(
                "VACUUM ANALYZE trigger_runtime.deliveries",
                logger: database.logger
            )
        }
    }

    /// Captures `events` deliveries with no worker running: whole-table updates of 10,000 rows.
    static func fillBacklog(_ database: BenchDatabase, events: Int) async throws {
        try await database.withConnection { connection in
            var captured = 0
            while captured < events {
                let rows = min(10_000, events - captured)
                try await connection.query(
                    "UPDATE bench_rows SET v = v + 1, sent_ns = 0 WHERE id <= \(rows)",
                    logger: database.logger
                )
                captured += rows
            }
            try await connection.query("ANALYZE trigger_runtime.deliveries", logger: database.logger)
        }
    }

    /// Runs `count` workers (each with its own pool, as separate processes would) around `body`, then shuts them
    /// down gracefully in a `ServiceGroup` (workers first, then their pools).
    static func withWorkers(
        _ count: Int,
        database: BenchDatabase,
        registry: FunctionRegistry,
        configuration: TriggerRuntime.Configuration,
        _ body: () async throws -> Void
    ) async throws {
        var services: [any Service] = []
        var runtimes: [any Service] = []
        for _ in 0..<count {
            let client = PostgresClient(
                configuration: database.clientConfiguration,
                backgroundLogger: database.logger
            )
            services.append(client)
            var configuration = configuration
            configuration.workerID = TriggerRuntime.Configuration().workerID
            runtimes.append(
                TriggerRuntime(client: client, registry: registry, configuration: configuration, logger: database.logger)
            )
        }
        try await ServiceGroup.withRunning(services + runtimes, logger: database.logger, body)
    }
}

/// Counts handled deliveries and keeps their latencies; `wait(for:)` returns once a count is reached.
final class Tally: Sendable {
    private struct State {
        var count = 0
        var latencies: [Int64] = []
        /// Handler start by the producer's send time (events that carry one).
        var starts: [Int64: Int64] = [:]
        var waiter: (target: Int, continuation: CheckedContinuation<Void, Never>)?
    }
    private let state = Mutex(State())

    var count: Int { self.state.withLock { $0.count } }

    func reset() {
        self.state.withLock { $0 = State() }
    }

    func record(sentNanoseconds: Int64) {
        let now = monotonicNanoseconds()
        let resume = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.count += 1
            if sentNanoseconds > 0 {
                state.latencies.append(now - sentNanoseconds)
                state.starts[sentNanoseconds] = now
            }
            if let waiter = state.waiter, state.count >= waiter.target {
                state.waiter = nil
                return waiter.continuation
            }
            return nil
        }
        resume?.resume()
    }

    func latencies() -> [Int64] { self.state.withLock { $0.latencies } }

    /// Handler start minus the commit acknowledgement of each event in `acknowledged` (send time → ack time).
    func latencies(fromAcknowledgements acknowledged: [Int64: Int64]) -> [Int64] {
        self.state.withLock { state in
            state.starts.compactMap { sent, start in acknowledged[sent].map { start - $0 } }
        }
    }

    /// Waits until `target` deliveries were handled; throws after `timeout`.
    func wait(for target: Int, timeout: Duration) async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let ready = self.state.withLock { state -> Bool in
                        if state.count >= target { return true }
                        state.waiter = (target, continuation)
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                // Time is up (or the target was reached and this task was cancelled): release the waiter.
                self.state.withLock { state in
                    defer { state.waiter = nil }
                    return state.waiter?.continuation
                }?.resume()
            }
            await group.next()
            group.cancelAll()
        }
        let handled = self.count
        if handled < target {
            throw BenchError("timed out waiting for \(target) deliveries (handled \(handled))")
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
