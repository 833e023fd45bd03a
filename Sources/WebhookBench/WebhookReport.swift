import BenchSupport
import Foundation

/// The `webhook-bench` section of BENCHMARKS.md.
struct WebhookReport {
    static let section = ReportSection(name: "webhook-bench")

    let results: [LevelResult]
    let drivers: Int
    let eventsPerDelivery: Int
    /// Drivers on a drive (an open leg): their locations are stored in the inbox, the others' only applied.
    let driving: Int
    let command: String
    let environment: [String: String]

    var markdown: String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = ProcessInfo.processInfo.physicalMemory
        let cpu =
            ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").split(separator: "\n")
            .first { $0.hasPrefix("model name") }.flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let extra =
            self.environment.isEmpty
            ? ""
            : " with " + self.environment.sorted { $0.key < $1.key }.map { "`\($0)=\($1)`" }.joined(separator: ", ")
        let driving =
            self.driving == 0
            ? " (none on a drive: their locations move them and are not stored)"
            : " (\(self.driving) of the drivers on a drive, whose locations the inbox stores)"
        var lines = [
            "## Webhook ingestion: signed location deliveries into one API and one worker (`webhook-bench`)",
            "",
            "Written by `\(self.command)` on \(ISO8601DateFormatter().string(from: Date())), \(cores) cores "
                + "(\(cpu)), \(String(format: "%.1f", Double(memory) / 1_073_741_824)) GiB. "
                + "`ridesharing serve --api-only` and `ridesharing serve --worker-only` (default settings, "
                + "LOG_LEVEL=info\(extra)) beside a PostgreSQL of the benchmark's own (fsync and synchronous commit "
                + "on); \(self.drivers) drivers. Each delivery is a signed `POST /v1/hypertrack/webhooks/{secret}` "
                + "of \(self.eventsPerDelivery) `location` events of as many drivers\(driving). Events/s: "
                + "the events of the acknowledged deliveries. Closed loop: N senders, each posting again once answered; open loop: deliveries sent "
                + "when due whatever the answers, latency counted from when each was due. Backlog: `onTripWebhook` "
                + "deliveries not yet done when the load stopped; drain: how long the worker then took to finish "
                + "them.",
            "",
            "| run | deliveries/s | events/s | ack p50 / p99 / max | backlog at end | drain | positions applied "
                + "| CPU s/s (api, worker) | busy backends |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for result in self.results {
            let cpu = result.cpuPerSecond.map { String(format: "%.2f", $0.1) }.joined(separator: ", ")
            lines.append(
                "| \(result.mode) | \(Self.number(result.deliveriesPerSecond)) | \(Self.number(result.eventsPerSecond)) "
                    + "| \(Self.ms(result.percentile(0.5))) / \(Self.ms(result.percentile(0.99))) / "
                    + "\(Self.ms(result.percentile(1))) | \(result.backlogAtEnd) | "
                    + (result.drainSeconds.map { String(format: "%.1f s", $0) } ?? "not drained") + " | "
                    + "\(result.positionsApplied) | \(cpu) | \(String(format: "%.1f", result.busyBackends)) |"
            )
        }
        lines += [
            "", "What the busy PostgreSQL backends were doing (pg_stat_activity every 20 ms; share of busy samples):",
            "",
        ]
        for result in self.results {
            let waits = result.waits.map { "\($0.0) \(String(format: "%.0f%%", $0.1 * 100))" }
            lines.append("- \(result.mode): " + waits.joined(separator: "; "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func number(_ value: Double) -> String { String(format: "%.0f", value) }
    static func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
}
