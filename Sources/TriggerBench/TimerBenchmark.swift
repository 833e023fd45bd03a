import Foundation
import Logging
import PostgresNIO
import Synchronization
import TriggerRuntime

/// Timers: `count` timers due at the same instant, fired by one worker.
///
/// The timers are scheduled (in one transaction, with no worker running) a few seconds ahead of a common due time,
/// so the worker starts idle and asleep and must wake for the due time on its own. Lateness is measured on the
/// database's clock: the handler reads `clock_timestamp()` in its transaction and subtracts the timer's due time
/// (both PostgreSQL's), so no clock of this process enters it.
enum TimerBenchmark {
    static let function: FunctionName = "bench_timer"

    struct Result {
        var count: Int
        var rate: Double
        var lateness: LatencySummary
    }

    static func run(
        database: BenchDatabase,
        worker: TriggerRuntime.Configuration,
        count: Int,
        lead: Duration = .seconds(5)
    ) async throws -> Result {
        let lateness = Mutex<[Int64]>([])
        let tally = Tally()
        var registry = FunctionRegistry()
        registry.registerTimer(Self.function, as: Int.self) { timer, context in
            // One round trip the handler needs anyway to read the database's clock; it is part of "handler start".
            guard let transaction = context.transaction else { return }
            let rows = try await transaction.query("SELECT clock_timestamp()", logger: context.logger)
            for try await started in rows.decode(Date.self) {
                let late = Int64(started.timeIntervalSince(timer.dueAt) * 1e9)
                lateness.withLock { $0.append(late) }
            }
            tally.record(sentNanoseconds: 0)
        }
        try await RuntimeBenchmarks.prepare(database, registry: registry)
        try await RuntimeBenchmarks.clearQueue(database)
        let logger = database.logger
        logger.info("timers: scheduling \(count) timers due together \(lead) from now")
        try await database.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            // One statement inserts them all; what PostgresTimers writes per call, in bulk.
            try await connection.query(
                """
                INSERT INTO trigger_runtime.timers (function_name, document_key, timer_key, due_at, payload)
                SELECT \(Self.function.rawValue), 'doc-' || g, 'expire',
                       now() + make_interval(secs => \(lead.seconds)), to_jsonb(g)
                FROM generate_series(1, \(count)) g
                """,
                logger: logger
            )
            try await connection.query("COMMIT", logger: logger)
            try await connection.query("ANALYZE trigger_runtime.timers", logger: logger)
        }
        var start: Int64 = 0
        try await RuntimeBenchmarks.withWorkers(1, database: database, registry: registry, configuration: worker) {
            try await tally.wait(for: 1, timeout: .seconds(120))
            start = monotonicNanoseconds()
            try await tally.wait(for: count, timeout: .seconds(1200))
        }
        // From the first handler start to the last: the timers' drain rate once due.
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        return Result(
            count: count,
            rate: Double(count - 1) / seconds,
            lateness: LatencySummary(nanoseconds: lateness.withLock { $0 })
        )
    }
}
