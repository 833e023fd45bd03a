import Foundation

/// The machine's CPU time so far by what it went to, all CPUs together, from the first line of `/proc/stat`
/// (Linux): busy (user, nice, system, irq, softirq), idle (idle, iowait) and stolen (`steal`: time the hypervisor
/// gave another guest while this one had work).
///
/// **Why.** Runs of one build on this machine differ more than builds do: in the 50th session the same 4,000-ride
/// city set up its drivers in 123 s and met the arrival target in one run, and took 243 s and left 268 rides
/// moving at the deadline in another, an hour apart (BENCHMARKS.md). The machine is a virtual one; a 10-second look
/// at `/proc/stat` during a run found 27% of its CPU time stolen. The report says how much was, so a reader knows
/// which runs compare.
struct MachineUsage: Sendable, Equatable {
    /// Clock ticks (`USER_HZ`) in each state since boot.
    var busy: Double
    var idle: Double
    var stolen: Double
    /// The `cpuN` lines: the machine's CPUs.
    var cpus: Int

    var total: Double { self.busy + self.idle + self.stolen }

    /// Reads `/proc/stat`.
    static func read() throws -> MachineUsage {
        try Self.parse(try String(contentsOfFile: "/proc/stat", encoding: .utf8))
    }

    /// The `cpu` line's fields (user nice system idle iowait irq softirq steal …; `guest` is counted in `user`
    /// already, so it is not added again) and the number of `cpuN` lines.
    static func parse(_ stat: String) throws -> MachineUsage {
        let lines = stat.split(separator: "\n")
        guard let line = lines.first(where: { $0.hasPrefix("cpu ") }) else {
            throw LocalStackError.invalidPayload("/proc/stat has no cpu line")
        }
        let ticks = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else {
            throw LocalStackError.invalidPayload("/proc/stat's cpu line has \(ticks.count) numbers, not 8 or more")
        }
        let cpus = lines.filter { $0.hasPrefix("cpu") && !$0.hasPrefix("cpu ") }.count
        return MachineUsage(
            busy: ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6],
            idle: ticks[3] + ticks[4],
            stolen: ticks[7],
            cpus: cpus
        )
    }

    /// The report's line for the time between `first` and `last` (shares of all the CPUs' time in between).
    static func text(from first: MachineUsage, to last: MachineUsage) -> String {
        let total = last.total - first.total
        guard total > 0 else { return "Machine: no CPU time between the first and last samples" }
        func share(_ value: (MachineUsage) -> Double) -> Double { (value(last) - value(first)) / total * 100 }
        return String(
            format: "Machine (%d CPUs, `/proc/stat`): busy %.0f%%, idle %.0f%%, stolen by the hypervisor %.0f%% of "
                + "their time",
            last.cpus,
            share(\.busy),
            share(\.idle),
            share(\.stolen)
        )
    }
}
