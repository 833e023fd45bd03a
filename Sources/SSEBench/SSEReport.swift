import BenchSupport
import Foundation

/// The run as markdown for BENCHMARKS.md, with the command and the machine.
struct SSEReport: Sendable {
    static let section = ReportSection(name: "sse-bench")
    /// Issue 15's targets.
    static let latencyTargetMilliseconds = 50.0
    static let memoryTargetBytes = 20_000.0

    let plan: StreamPlan
    let result: StreamResult
    let command: String

    /// Resident growth of the API from before the streams to after they sat idle, per stream.
    var bytesPerIdleStream: Double {
        Double(self.result.residentIdleKiB - self.result.residentBeforeKiB) * 1_024 / Double(self.plan.streams)
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    private static func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }

    var markdown: String {
        let machine = ProcessInfo.processInfo
        let date = ISO8601DateFormatter().string(from: Date())
        let memory = String(format: "%.1f", Double(machine.physicalMemory) / 1_073_741_824)
        let r = self.result
        let p50 = Self.percentile(r.latencies, 0.5)
        let p99 = Self.percentile(r.latencies, 0.99)
        let max = r.latencies.last ?? .nan
        let perStream = self.bytesPerIdleStream
        let met = { (ok: Bool) in ok ? "met" : "**not met**" }
        return """
            ## Server-sent events: \(self.plan.streams) streams on one API process (`sse-bench`)

            Written by `\(self.command)` on \(date), \
            \(machine.activeProcessorCount) cores, \(memory) GiB. One `ridesharing serve --api-only` beside a \
            PostgreSQL of the benchmark's own (no worker: the events come from the database triggers of the API's \
            own writes); \(self.plan.riders) riders signed in through the code flow, each with \
            \(self.plan.streamsPerRider) streams of `GET /v1/events`; after \(self.plan.idle) s idle, \
            \(self.plan.rate) order changes per second for \(self.plan.seconds) s (a rider's open order cancelled, \
            then a new one booked), each an `order.status` event on all of that rider's streams. Latency is from \
            just before the change's request is sent to the event read on a stream (so it includes the request's \
            own commit), over every stream's copy.

            | measure | value | target |
            | --- | --- | --- |
            | streams open | \(self.plan.streams) in \(String(format: "%.1f", r.openSeconds)) s | |
            | API resident memory: before the streams / open / after \(self.plan.idle) s idle | \
            \(r.residentBeforeKiB / 1024) / \(r.residentOpenKiB / 1024) / \(r.residentIdleKiB / 1024) MiB | |
            | memory per idle stream | \(String(format: "%.1f", perStream / 1_000)) KB | < 20 KB: \
            \(met(perStream < Self.memoryTargetBytes)) |
            | changes sent | \(r.changes) in \(String(format: "%.1f", r.changeSeconds)) s | |
            | change → event, p50 / p99 / max | \(Self.ms(p50)) / \(Self.ms(p99)) / \(Self.ms(max)) | p99 < 50 ms: \
            \(met(p99 < Self.latencyTargetMilliseconds)) |
            | the change's request, p50 / p99 | \(Self.ms(Self.percentile(r.requestLatencies, 0.5))) / \
            \(Self.ms(Self.percentile(r.requestLatencies, 0.99))) | |
            | events expected / missing / repeated | \(r.expected) / \(r.missing) / \(r.duplicated) | 0 missing, 0 repeated |
            | heartbeats read, streams closed by the server, stream failures | \(r.heartbeats), \
            \(r.closed.values.reduce(0, +)), \(r.failures.count) | |
            | API CPU during the changes | \(String(format: "%.1f", r.apiCPUSeconds)) s | |
            \(r.failures.prefix(5).map { "\nA stream failed: \($0)" }.joined())
            """
    }
}
