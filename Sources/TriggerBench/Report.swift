import Foundation

/// The measurements of one run, rendered as BENCHMARKS.md.
struct Report {
    var command: String
    var machine: Machine
    var server: [(String, String)]
    var date = Date()

    var notifyFloor: LatencySummary?
    var plainUpdateRate: [Double] = []
    var captureOnlyRate: [Double] = []
    var rawClaimRate: [Double] = []

    var runtimeLatency: LatencySummary?
    var runtimeLatencyFromAcknowledgement: LatencySummary?
    var drainOneWorker: [Double] = []
    var drainTwoWorkers: [Double] = []
    var timers: TimerBenchmark.Result?
    var steadyProduced: [Double] = []
    var steadyHandled: [Double] = []
    /// The capture-only floor measured just before each steady-load run (same order as `steadyHandled`).
    var steadyPairedCaptureOnly: [Double] = []
    var steadyLag: LatencySummary?
    var workerMemory: (current: Double, peak: Double)?
    var workerProcessMemory: (current: Double, peak: Double)?
    var notes: [String] = []

    func markdown() -> String {
        var lines: [String] = []
        let dateText = ISO8601DateFormatter().string(from: self.date)
        lines.append("# Benchmarks")
        lines.append("")
        lines.append("Produced by `trigger-bench` on \(dateText). Command:")
        lines.append("")
        lines.append("    \(self.command)")
        lines.append("")
        lines.append(
            "Machine: \(self.machine.cores) cores (\(self.machine.cpu)), \(self.machine.memory) memory, Linux \(self.machine.kernel). "
                + "The machine is shared and noisy: throughput rows give the median of the repetitions (all values in brackets)."
        )
        lines.append("")
        lines.append(
            "PostgreSQL (a fresh cluster started by the benchmark; settings marked * differ from the defaults): "
                + self.server.map { "`\($0.0)=\($0.1)`" + (BenchDatabase.settings[$0.0] != nil ? "*" : "") }
                .joined(separator: ", ") + "."
        )
        lines.append("")
        lines.append("## Latency (commit of an UPDATE → handler start, no-op handler)")
        lines.append("")
        lines.append("| what | events | p50 ms | p90 ms | p99 ms | max ms | target |")
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
        if let runtime = self.runtimeLatencyFromAcknowledgement {
            lines.append(
                Self.latencyRow(
                    "trigger runtime, from the commit (its acknowledgement)",
                    runtime,
                    target: "p50 ≤ 1.5, p99 ≤ 8"
                )
            )
        }
        if let runtime = self.runtimeLatency {
            lines.append(Self.latencyRow("trigger runtime, from sending the UPDATE", runtime, target: ""))
        }
        if let floor = self.notifyFloor {
            lines.append(Self.latencyRow("floor: NOTIFY → LISTEN, same rate", floor, target: ""))
        }
        if let timers = self.timers {
            lines.append(
                Self.latencyRow(
                    "timers: lateness, due time → handler start (database clock), \(timers.count) due at once",
                    timers.lateness,
                    target: ""
                )
            )
        }
        lines.append("")
        lines.append("## Throughput")
        lines.append("")
        lines.append("| what | events/s (median) | runs | target |")
        lines.append("| --- | ---: | --- | --- |")
        lines.append(Self.rateRow("backlog drain, 1 worker", self.drainOneWorker, target: "≥ 10,000"))
        lines.append(Self.rateRow("backlog drain, 2 workers", self.drainTwoWorkers, target: ""))
        if let timers = self.timers {
            lines.append(
                Self.rateRow(
                    "timers: \(timers.count) due at the same instant, fired by 1 worker (first to last handler start)",
                    [timers.rate],
                    target: ""
                )
            )
        }
        lines.append(
            Self.rateRow(
                "steady load: produced (producer as fast as it can, 2 connections)",
                self.steadyProduced,
                target: ""
            )
        )
        lines.append(
            Self.rateRow(
                "steady load: handled by 1 worker",
                self.steadyHandled,
                target: "≥ 50% of capture-only"
            )
        )
        if !self.steadyPairedCaptureOnly.isEmpty {
            lines.append(
                Self.rateRow(
                    "floor: capture only, measured just before each steady-load run",
                    self.steadyPairedCaptureOnly,
                    target: ""
                )
            )
        }
        lines.append(
            Self.rateRow(
                "floor: plain UPDATE, 2 connections, no trigger",
                self.plainUpdateRate,
                target: ""
            )
        )
        lines.append(
            Self.rateRow(
                "floor: capture only (UPDATE + outbox insert + NOTIFY), 2 connections",
                self.captureOnlyRate,
                target: ""
            )
        )
        lines.append(
            Self.rateRow(
                "floor: raw claim loop (SKIP LOCKED, batch 32, delete)",
                self.rawClaimRate,
                target: ""
            )
        )
        lines.append("")
        if self.steadyPairedCaptureOnly.count == self.steadyHandled.count, !self.steadyHandled.isEmpty {
            let ratios = zip(self.steadyHandled, self.steadyPairedCaptureOnly).map { $0 / $1 * 100 }
            lines.append(
                "Steady load handled / capture-only rate, each steady run against the capture-only run just before it: "
                    + "**\(format(median(ratios), digits: 0))%** (median of "
                    + "[\(ratios.map { format($0, digits: 0) + "%" }.joined(separator: ", "))]; target ≥ 50%)."
            )
        }
        if !self.steadyHandled.isEmpty, !self.captureOnlyRate.isEmpty {
            let ratio = median(self.steadyHandled) / median(self.captureOnlyRate)
            lines.append(
                "Steady load handled / capture-only rate of the floors section (measured minutes apart): "
                    + "**\(format(ratio * 100, digits: 0))%**."
            )
        }
        if !self.drainOneWorker.isEmpty, !self.rawClaimRate.isEmpty {
            let ratio = median(self.drainOneWorker) / median(self.rawClaimRate)
            lines.append(
                "Backlog drain with 1 worker / raw claim loop: **\(format(ratio * 100, digits: 0))%**."
            )
        }
        if let lag = self.steadyLag {
            lines.append(
                "Lag during steady load (commit → handler start): p50 \(format(lag.p50)) ms, p99 \(format(lag.p99)) ms, max \(format(lag.max)) ms."
            )
        }
        if let memory = self.workerProcessMemory {
            lines.append(
                "Worker memory (a worker-only process: client pool + runtime, draining the backlog): \(format(memory.peak, digits: 0)) MiB peak resident (VmHWM), \(format(memory.current, digits: 0)) MiB at the end (target: below 100 MB)."
            )
        }
        if let memory = self.workerMemory {
            lines.append(
                "Benchmark process memory (one process: producer, worker(s), pools): \(format(memory.current, digits: 0)) MiB resident at the end, \(format(memory.peak, digits: 0)) MiB peak (target for a worker: below 100 MB)."
            )
        }
        if !self.notes.isEmpty {
            lines.append("")
            lines.append("## Notes")
            lines.append("")
            lines += self.notes.map { "- \($0)" }
        }
        lines.append("")
        return lines.joined(separator: "\n")
    }

    private static func latencyRow(
        _ name: String,
        _ summary: LatencySummary,
        target: String
    )
        -> String
    {
        "| \(name) | \(summary.count) | \(format(summary.p50)) | \(format(summary.p90)) | \(format(summary.p99)) | \(format(summary.max)) | \(target) |"
    }

    private static func rateRow(_ name: String, _ values: [Double], target: String) -> String {
        guard !values.isEmpty else { return "| \(name) | not measured | | \(target) |" }
        let runs = values.map { format($0, digits: 0) }.joined(separator: ", ")
        return "| \(name) | \(format(median(values), digits: 0)) | [\(runs)] | \(target) |"
    }
}
