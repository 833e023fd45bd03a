import BenchSupport
import ArgumentParser
import Foundation
import Logging

/// `soak-bench`: serves a long mixed load to the backend's own processes and reports their resident memory at
/// intervals, to show that it plateaus (the last quarter of the run grows less than 5% of the first quarter's level).
///
/// Scenarios: `services` runs `ridesharing serve --api-only` and `ridesharing serve --worker-only` beside a
/// `hypertrack-emulator` and a PostgreSQL of the benchmark's own; the API's load makes the worker's deliveries
/// (real functions: dispatch, order status, webhook handling, device registration). `local` runs
/// `ridesharing local` (one process: embedded PostgreSQL, emulator, worker and API) and serves it the same load.
@main
struct SoakBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak-bench",
        abstract: "Soak the API, the worker and the local stack with a mixed load and report resident memory."
    )

    enum Scenario: String, ExpressibleByArgument, CaseIterable, Sendable {
        case services, local
    }

    @Option(help: "API requests per scenario.") var requests = 200_000
    @Option(help: "Concurrent virtual users.") var users = 16
    @Option(help: "Memory samples over the run.") var samples = 20
    @Option(parsing: .upToNextOption, help: "Scenarios to run: services, local.") var scenarios = Scenario.allCases
    @Option(help: "Write the report into this file's soak section (e.g. BENCHMARKS.md).") var write: String?

    func validate() throws {
        guard self.requests >= 1000, self.users >= 1, self.samples >= 4 else {
            throw ValidationError("--requests ≥ 1000, --users ≥ 1, --samples ≥ 4")
        }
    }

    func run() async throws {
        var logger = Logger(label: "soak-bench")
        logger.logLevel = .notice
        let plan = Plan(requests: self.requests, users: self.users, samples: self.samples)
        var results: [ScenarioResult] = []
        for scenario in self.scenarios {
            say("soak-bench: \(scenario.rawValue), \(plan.requests) requests from \(plan.users) users")
            let result =
                switch scenario {
                case .services: try await ServicesScenario(plan: plan, logger: logger).run()
                case .local: try await LocalScenario(plan: plan, logger: logger).run()
                }
            say(result.markdown)
            results.append(result)
        }
        let report = SoakReport(plan: plan, results: results, command: CommandLine.arguments.dropFirst().joined(separator: " "))
        if let path = self.write { try report.write(into: path) }
        guard results.allSatisfy(\.passed) else { throw BenchError("a process did not plateau, or a check failed") }
    }
}

/// What every scenario runs.
struct Plan: Sendable {
    var requests: Int
    var users: Int
    var samples: Int

    /// The request counts at which memory is sampled: 0, then every `requests / samples`.
    var sampleStep: Int { max(1, self.requests / self.samples) }
}
