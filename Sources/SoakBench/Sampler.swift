import BenchSupport
import Foundation
import Logging
import PostgresNIO

/// Resident memory of the watched processes (and the queue's counts, when a database is given), sampled each time
/// the load passes another `step` requests.
actor Sampler {
    struct Sample: Sendable {
        var requests: Int
        var residentKiB: [String: Int]
        var deliveriesDone: Int?
    }

    private let processes: [(name: String, pid: Int32)]
    private let queue: QueueStats?
    private let step: Int
    private var next = 0
    private(set) var samples: [Sample] = []
    private let started = ContinuousClock.now

    init(processes: [(name: String, pid: Int32)], queue: QueueStats?, step: Int) {
        self.processes = processes
        self.queue = queue
        self.step = step
    }

    /// Samples when `requests` passed the next step; prints a progress line.
    func requestsSent(_ requests: Int) async {
        guard requests >= self.next else { return }
        self.next = (requests / self.step + 1) * self.step
        await self.sample(requests: requests)
    }

    /// Samples now (at the start, and after the load and the drain).
    func sample(requests: Int) async {
        var resident: [String: Int] = [:]
        for process in self.processes {
            do {
                resident[process.name] = try ChildProcess.residentKiB(pid: process.pid)
            } catch {
                say("soak-bench: \(error)")
            }
        }
        let done: Int?
        do { done = try await self.queue?.counts().done } catch {
            say("soak-bench: the queue's counts failed: \(error)")
            done = nil
        }
        self.samples.append(Sample(requests: requests, residentKiB: resident, deliveriesDone: done))
        let seconds = (ContinuousClock.now - self.started).secondsValue
        let memory = self.processes.map { "\($0.name) \(resident[$0.name].map { String($0 / 1024) } ?? "?") MiB" }
        say(
            "  \(requests) requests, \(String(format: "%.0f", Double(requests) / max(seconds, 0.001)))/s"
                + (done.map { ", \($0) deliveries done" } ?? "") + "; " + memory.joined(separator: ", ")
        )
    }
}

/// The trigger runtime's queue, read from its tables.
struct QueueStats: Sendable {
    let client: PostgresClient
    let logger: Logger

    struct Counts: Sendable {
        var done: Int
        var pending: Int
        var dead: Int
    }

    func counts() async throws -> Counts {
        let rows = try await self.client.query(
            """
            SELECT (SELECT count(*) FROM trigger_runtime.done)::int8,
                   (SELECT count(*) FROM trigger_runtime.deliveries WHERE status = 'ready')::int8,
                   (SELECT count(*) FROM trigger_runtime.deliveries WHERE status = 'dead')::int8
            """,
            logger: self.logger
        )
        var counts = Counts(done: 0, pending: 0, dead: 0)
        for try await (done, pending, dead) in rows.decode((Int, Int, Int).self) {
            counts = Counts(done: done, pending: pending, dead: dead)
        }
        return counts
    }

    /// Waits until no delivery is pending (the worker drained what the load captured); throws after `timeout`.
    func drained(timeout: Duration) async throws -> Counts {
        let deadline = ContinuousClock.now + timeout
        while true {
            let counts = try await self.counts()
            if counts.pending == 0 { return counts }
            guard ContinuousClock.now < deadline else {
                throw BenchError("\(counts.pending) deliveries still pending after \(timeout)")
            }
            // The poll interval: the queue belongs to another process and nothing notifies the benchmark.
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}

extension Duration {
    var secondsValue: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
