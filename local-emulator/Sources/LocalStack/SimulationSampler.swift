import Foundation
import Synchronization

/// What a run samples while its rides go on: the pending deliveries (a series for the plot) and each watched
/// process's resident memory and CPU time (peak memory, CPU used between the first and last sample).
final class SimulationSampler: Sendable {
    struct State: Sendable {
        var pending: [PendingPlot.Sample] = []
        var first: [String: ProcessUsage] = [:]
        var last: [String: ProcessUsage] = [:]
        var peakKiB: [String: Int] = [:]
        var firstAt: [String: ContinuousClock.Instant] = [:]
        var lastAt: [String: ContinuousClock.Instant] = [:]
        var failures: [String: String] = [:]
    }

    let state = Mutex(State())

    func pending(_ count: Int, at seconds: Double) {
        self.state.withLock { $0.pending.append(.init(seconds: seconds, pending: count)) }
    }

    /// Reads every process's usage now; a process that cannot be read (gone, another user's) is reported once.
    func sample(_ processes: [MeasuredProcess]) {
        let now = ContinuousClock.now
        for process in processes {
            do {
                let usage = try ProcessUsage.read(pid: process.pid)
                self.state.withLock { state in
                    if state.first[process.name] == nil {
                        state.first[process.name] = usage
                        state.firstAt[process.name] = now
                    }
                    state.last[process.name] = usage
                    state.lastAt[process.name] = now
                    state.peakKiB[process.name] = max(state.peakKiB[process.name] ?? 0, usage.residentKiB)
                }
            } catch {
                self.state.withLock { $0.failures[process.name] = "pid \(process.pid): \(error)" }
            }
        }
    }

    var snapshot: State { self.state.withLock { $0 } }
}

/// One watched process's usage over the rides.
struct ProcessReport: Sendable {
    var name: String
    var startKiB: Int
    var endKiB: Int
    var peakKiB: Int
    /// CPU seconds used per wall second (1.0 = one core busy).
    var cores: Double
    var failure: String?

    var text: String {
        if let failure, self.peakKiB == 0 { return "\(self.name): not measured (\(failure))" }
        return String(
            format: "%@: RSS %.0f MiB at the start, %.0f MiB at the end, peak %.0f MiB; CPU %.0f%% of a core",
            self.name,
            Double(self.startKiB) / 1024,
            Double(self.endKiB) / 1024,
            Double(self.peakKiB) / 1024,
            self.cores * 100
        )
    }

    static func reports(_ state: SimulationSampler.State, processes: [MeasuredProcess]) -> [ProcessReport] {
        processes.map { process in
            let name = process.name
            guard let first = state.first[name], let last = state.last[name], let from = state.firstAt[name],
                let to = state.lastAt[name]
            else {
                return ProcessReport(
                    name: name,
                    startKiB: 0,
                    endKiB: 0,
                    peakKiB: 0,
                    cores: 0,
                    failure: state.failures[name] ?? "no sample"
                )
            }
            let wall = max(CitySimulation.seconds(to - from), 0.001)
            return ProcessReport(
                name: name,
                startKiB: first.residentKiB,
                endKiB: last.residentKiB,
                peakKiB: state.peakKiB[name] ?? last.residentKiB,
                cores: (last.cpuSeconds - first.cpuSeconds) / wall,
                failure: state.failures[name]
            )
        }
    }
}
