import Foundation
import Synchronization

/// What a run samples while its rides go on: the pending deliveries (a series for the plot) and each watched
/// process's resident memory and CPU time (peak memory, CPU used between the first and last sample). A process
/// started again under the same name (a killed worker) continues its name's record: the CPU of each incarnation
/// between its first and last sample is added up (what one used after its last sample is not seen).
final class SimulationSampler: Sendable {
    struct State: Sendable {
        var pending: [PendingPlot.Sample] = []
        /// Names in the order first sampled.
        var names: [String] = []
        var first: [String: ProcessUsage] = [:]
        var last: [String: ProcessUsage] = [:]
        var peakKiB: [String: Int] = [:]
        var firstAt: [String: ContinuousClock.Instant] = [:]
        var lastAt: [String: ContinuousClock.Instant] = [:]
        var failures: [String: String] = [:]
        /// The pid last sampled under a name, the CPU seconds its incarnation had at its first sample, and the CPU
        /// seconds earlier incarnations used while sampled.
        var pid: [String: Int32] = [:]
        var incarnationStartCPU: [String: Double] = [:]
        var earlierCPU: [String: Double] = [:]
        /// The machine's CPU time at the first and the last sample (``MachineUsage``), or why it could not be read.
        var machineFirst: MachineUsage?
        var machineLast: MachineUsage?
        var machineFailure: String?
    }

    let state = Mutex(State())

    func pending(_ count: Int, at seconds: Double) {
        self.state.withLock { $0.pending.append(.init(seconds: seconds, pending: count)) }
    }

    /// Reads every process's usage now; a process that cannot be read (gone, another user's) is reported once.
    func sample(_ processes: [MeasuredProcess]) {
        let now = ContinuousClock.now
        do {
            let machine = try MachineUsage.read()
            self.state.withLock { $0.record(machine) }
        } catch {
            self.state.withLock { $0.machineFailure = "\(error)" }
        }
        for process in processes {
            do {
                let usage =
                    process.withChildren
                    ? try ProcessUsage.readTree(pid: process.pid) : try ProcessUsage.read(pid: process.pid)
                self.state.withLock { $0.record(process, usage, at: now) }
            } catch {
                self.state.withLock { $0.failures[process.name] = "pid \(process.pid): \(error)" }
            }
        }
    }

    var snapshot: State { self.state.withLock { $0 } }
}

extension SimulationSampler.State {
    /// Records one reading of the machine's CPU time.
    mutating func record(_ machine: MachineUsage) {
        if self.machineFirst == nil { self.machineFirst = machine }
        self.machineLast = machine
    }

    /// The machine's CPU time between the first and last samples, in clock ticks.
    var machineTicks: Double { (self.machineLast?.total ?? 0) - (self.machineFirst?.total ?? 0) }

    /// The report's line on the machine's CPU time over the samples (``MachineUsage``).
    var machineText: String {
        guard let first = self.machineFirst, let last = self.machineLast else {
            return "Machine: not measured (\(self.machineFailure ?? "no sample"))"
        }
        return MachineUsage.text(from: first, to: last)
    }

    /// Records one reading of a process (a new pid under a known name is its next incarnation).
    mutating func record(_ process: MeasuredProcess, _ usage: ProcessUsage, at now: ContinuousClock.Instant) {
        let name = process.name
        if self.first[name] == nil {
            self.names.append(name)
            self.first[name] = usage
            self.firstAt[name] = now
            self.incarnationStartCPU[name] = usage.cpuSeconds
        } else if self.pid[name] != process.pid {
            let used = (self.last[name]?.cpuSeconds ?? 0) - (self.incarnationStartCPU[name] ?? 0)
            self.earlierCPU[name, default: 0] += max(used, 0)
            self.incarnationStartCPU[name] = usage.cpuSeconds
        }
        self.pid[name] = process.pid
        self.last[name] = usage
        self.lastAt[name] = now
        self.peakKiB[name] = max(self.peakKiB[name] ?? 0, usage.residentKiB)
    }
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

    static func reports(_ state: SimulationSampler.State) -> [ProcessReport] {
        (state.names + state.failures.keys.filter { !state.names.contains($0) }.sorted()).map { name in
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
                cores: ((state.earlierCPU[name] ?? 0) + last.cpuSeconds - (state.incarnationStartCPU[name] ?? 0)) / wall,
                failure: state.failures[name]
            )
        }
    }
}
