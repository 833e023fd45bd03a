import BenchSupport
import Foundation
import Synchronization

/// One run of the load (a closed-loop level or the open-loop rate) with what the database and the processes did
/// meanwhile, then the worker's drain.
struct LevelRunner: Sendable {
    let load: WebhookLoad
    let database: BenchDatabase
    let processes: [ChildProcess]
    let drainTimeout: Duration

    enum Mode: Sendable, CustomStringConvertible {
        case closed(concurrency: Int)
        case open(rate: Int)

        var description: String {
            switch self {
            case .closed(let concurrency): "closed loop, concurrency \(concurrency)"
            case .open(let rate): "open loop, \(rate) deliveries/s"
            }
        }
    }

    func run(_ mode: Mode, for duration: Duration) async throws -> LevelResult {
        say("webhook-bench: \(mode) for \(duration)")
        let before = try await self.database.counts()
        let cpuBefore = try self.processes.map { try $0.cpuSeconds() }
        let samples = WaitSamples()
        let load = try await withThrowingTaskGroup(of: LoadResult?.self) { group in
            group.addTask {
                // The sampling clock: a look at pg_stat_activity every 20 ms while the load runs.
                while !Task.isCancelled {
                    samples.add(try await self.database.waits())
                    try? await Task.sleep(for: .milliseconds(20))
                }
                return nil
            }
            defer { group.cancelAll() }
            switch mode {
            case .closed(let concurrency):
                return try await self.load.closedLoop(concurrency: concurrency, for: duration)
            case .open(let rate): return try await self.load.openLoop(rate: rate, for: duration)
            }
        }
        let atEnd = try await self.database.counts()
        let cpuAtEnd = try self.processes.map { try $0.cpuSeconds() }
        let drain = try await self.database.drain(timeout: self.drainTimeout)
        let drained = try await self.database.counts()
        let result = LevelResult(
            mode: mode,
            load: load,
            eventsPerDelivery: self.load.eventsPerDelivery,
            backlogAtEnd: atEnd.pending,
            drainSeconds: drain?.inSeconds,
            positionsApplied: drained.positions - before.positions,
            dead: drained.dead,
            cpuPerSecond: zip(self.processes, zip(cpuBefore, cpuAtEnd)).map { pair in
                (pair.0.name, (pair.1.1 - pair.1.0) / load.elapsed)
            },
            waits: samples.top(8),
            busyBackends: samples.meanBusy
        )
        say("  " + result.line)
        return result
    }
}

/// The wait-event samples of one run.
final class WaitSamples: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var looks = 0
        var busy = 0
    }
    private let state = Mutex(State())

    func add(_ waits: [String]) {
        self.state.withLock { state in
            state.looks += 1
            state.busy += waits.count
            for wait in waits { state.counts[wait, default: 0] += 1 }
        }
    }

    /// The most frequent (statement, wait) pairs with their share of all busy-backend samples.
    func top(_ count: Int) -> [(String, Double)] {
        self.state.withLock { state in
            state.counts.sorted { $0.value > $1.value }.prefix(count).map {
                ($0.key, Double($0.value) / Double(max(state.busy, 1)))
            }
        }
    }

    /// Busy client backends per look, on average.
    var meanBusy: Double {
        self.state.withLock { Double($0.busy) / Double(max($0.looks, 1)) }
    }
}

/// What one run measured.
struct LevelResult: Sendable {
    var mode: LevelRunner.Mode
    var load: LoadResult
    var eventsPerDelivery: Int
    var backlogAtEnd: Int
    var drainSeconds: Double?
    var positionsApplied: Int
    var dead: Int
    var cpuPerSecond: [(String, Double)]
    var waits: [(String, Double)]
    var busyBackends: Double

    var failures: [String] { self.load.failures }
    var deliveriesPerSecond: Double { Double(self.load.acknowledged) / self.load.elapsed }
    /// The acknowledged deliveries' events a second (not the rows stored: the inbox keeps only locations a drive
    /// reads, ``M0028DriveLocations``).
    var eventsPerSecond: Double { Double(self.load.acknowledged * self.eventsPerDelivery) / self.load.elapsed }

    func percentile(_ p: Double) -> Double {
        let sorted = self.load.latencies.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    var line: String {
        let drain = self.drainSeconds.map { String(format: "%.1f s", $0) } ?? "not within the timeout"
        return String(
            format: "%.0f deliveries/s, %.0f events/s, ack p50 %.1f ms p99 %.1f ms max %.1f ms; backlog %d, ",
            self.deliveriesPerSecond,
            self.eventsPerSecond,
            self.percentile(0.5),
            self.percentile(0.99),
            self.percentile(1),
            self.backlogAtEnd
        ) + "drained in " + drain
    }
}
