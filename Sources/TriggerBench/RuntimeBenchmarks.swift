import Foundation

/// The trigger runtime's own measurements (latency, backlog drain, steady load, memory).
enum RuntimeBenchmarks {
    static func run(
        database: BenchDatabase,
        rate: Int,
        latencyDuration: Duration,
        backlog: Int,
        throughputDuration: Duration,
        repeats: Int,
        report: inout Report
    ) async throws {
        report.notes.append("The runtime's own rows are not measured yet: the runtime engine has not landed.")
    }
}
