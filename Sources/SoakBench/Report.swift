import BenchSupport
import Foundation

/// One scenario's numbers and checks.
struct ScenarioResult: Sendable {
    var name: String
    var summary: String
    var plan: Plan
    var processNames: [String]
    var samples: [Sampler.Sample]
    var requests: Int
    var loadSeconds: Double
    var unexpected: Int
    var lastProblem: String?
    var queue: QueueStats.Counts
    var cpuSeconds: [String: Double]
    var stopSeconds: [String: Double]

    /// The plateau rule per process: from the sample at three quarters of the run to the last (after the drain),
    /// resident memory grows less than 5% of its level at one quarter.
    struct Plateau: Sendable {
        var firstQuarterKiB: Int
        var lastQuarterGrowthKiB: Int
        var passed: Bool { Double(self.lastQuarterGrowthKiB) < 0.05 * Double(self.firstQuarterKiB) }
    }

    func plateau(_ process: String) -> Plateau? {
        let values = self.samples.compactMap { $0.residentKiB[process] }
        guard values.count >= 4 else { return nil }
        let quarter = values[values.count / 4]
        let threeQuarters = values[values.count * 3 / 4]
        return Plateau(firstQuarterKiB: quarter, lastQuarterGrowthKiB: values[values.count - 1] - threeQuarters)
    }

    /// Every check with its verdict.
    var checks: [(String, Bool)] {
        var checks = self.processNames.map { name in
            let plateau = self.plateau(name)
            let text = plateau.map {
                "\(name): the last quarter grew \(Self.mebibytes($0.lastQuarterGrowthKiB)) MiB; the limit is 5% of "
                    + "\(Self.mebibytes($0.firstQuarterKiB)) MiB"
            }
            return (text ?? "\(name): too few samples", plateau?.passed ?? false)
        }
        checks.append(("every response had its expected status (\(self.unexpected) did not)", self.unexpected == 0))
        checks.append(("no delivery dead (\(self.queue.dead))", self.queue.dead == 0))
        checks.append(
            ("deliveries through real functions ≥ requests (\(self.queue.done) for \(self.requests))",
             self.queue.done >= self.requests)
        )
        return checks
    }

    var passed: Bool { self.checks.allSatisfy(\.1) }

    static func mebibytes(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }

    var markdown: String {
        var lines = [
            "### \(self.name)", "", self.summary + ".", "",
            "\(self.requests) requests from \(self.plan.users) users in \(String(format: "%.0f", self.loadSeconds)) s "
                + "(\(String(format: "%.0f", Double(self.requests) / self.loadSeconds)) requests/s); "
                + "\(self.queue.done) deliveries done, \(self.queue.dead) dead.",
            "",
            "| requests | " + self.processNames.map { "\($0) RSS (MiB)" }.joined(separator: " | ")
                + " | deliveries done |",
            "|---:|" + self.processNames.map { _ in "---:|" }.joined() + "---:|",
        ]
        for sample in self.samples {
            let memory = self.processNames.map { name in
                sample.residentKiB[name].map { String(format: "%.1f", Double($0) / 1024) } ?? "?"
            }
            lines.append(
                "| \(sample.requests) | " + memory.joined(separator: " | ")
                    + " | \(sample.deliveriesDone.map(String.init) ?? "?") |"
            )
        }
        lines.append("")
        lines.append("(The last row is after the worker drained the queue.) CPU during the run: "
            + self.processNames.map { "\($0) \(String(format: "%.0f", self.cpuSeconds[$0] ?? .nan)) s" }
            .joined(separator: ", ")
            + "; graceful stop: "
            + self.processNames.map { "\($0) \(String(format: "%.1f", self.stopSeconds[$0] ?? .nan)) s" }
            .joined(separator: ", ") + ".")
        lines.append("")
        for (check, passed) in self.checks { lines.append("- \(passed ? "met" : "NOT MET"): \(check)") }
        if let problem = self.lastProblem { lines.append("- last unexpected response: \(problem)") }
        return lines.joined(separator: "\n")
    }
}

/// The whole run, written into the soak section of a markdown file (between its markers; appended if missing).
struct SoakReport {
    var plan: Plan
    var results: [ScenarioResult]
    var command: String

    static let section = ReportSection(name: "soak-bench")

    var markdown: String {
        let machine = ProcessInfo.processInfo
        let date = ISO8601DateFormatter().string(from: Date())
        let memory = String(format: "%.1f", Double(machine.physicalMemory) / 1_073_741_824)
        let cycle: String =
            "a user's cycle is `GET /v1/me`, `POST /v1/orders`, `GET /v1/orders/{id}`, `GET /v1/orders`, "
            + "`POST /v1/orders/{id}/cancel`, a signed webhook of \(APILoad.eventsPerWebhook) location events, "
            + "`GET /v1/me` with an unknown token (401) and the driver's `GET /v1/offers`; every 50 cycles a new "
            + "rider signs up"
        let intro: String =
            "Written by `.build/release/soak-bench \(self.command)` (after `swift build -c release`) on \(date), "
            + "\(machine.activeProcessorCount) cores, \(memory) GiB. Each scenario serves \(self.plan.requests) "
            + "requests from \(self.plan.users) virtual users; \(cycle). Memory is the process's VmRSS. The rule: "
            + "from three quarters of the run to the end, growth < 5% of the level at one quarter."
        return [
            "## Soak: resident memory under a long mixed load (`soak-bench`)",
            "",
            intro,
            "",
            self.results.map(\.markdown).joined(separator: "\n\n"),
        ].joined(separator: "\n")
    }

    func write(into path: String) throws {
        try Self.section.write(self.markdown, into: path)
    }
}
