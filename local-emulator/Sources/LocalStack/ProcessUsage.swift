import Foundation

/// A process the simulation watches (the API, the worker, or the one process of the local stack): a name for the
/// report and its pid on this machine. A stack of several processes passes one per process.
public struct MeasuredProcess: Sendable, Hashable {
    public var name: String
    public var pid: Int32

    public init(name: String, pid: Int32) {
        self.name = name
        self.pid = pid
    }
}

/// A process's resident memory and CPU time so far, from `/proc` (Linux).
struct ProcessUsage: Sendable, Equatable {
    var residentKiB: Int
    var cpuSeconds: Double

    /// Reads `/proc/PID/status` (VmRSS) and `/proc/PID/stat` (utime + stime).
    static func read(pid: Int32) throws -> ProcessUsage {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        return try Self.parse(status: status, stat: stat, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The two files' fields: `VmRSS:  123 kB` of status; of stat, the 14th and 15th fields (utime, stime in clock
    /// ticks), counted after the command name's closing parenthesis (a name may hold spaces and parentheses).
    static func parse(status: String, stat: String, ticksPerSecond: Double) throws -> ProcessUsage {
        guard
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({
                Int($0)
            })
        else { throw LocalStackError.invalidPayload("no VmRSS line in /proc/PID/status") }
        guard let close = stat.lastIndex(of: ")") else {
            throw LocalStackError.invalidPayload("/proc/PID/stat has no command name")
        }
        // After ") ": state is field 3, so utime (14) and stime (15) are the 12th and 13th from here.
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]), ticksPerSecond > 0
        else { throw LocalStackError.invalidPayload("/proc/PID/stat has no utime and stime") }
        return ProcessUsage(residentKiB: kib, cpuSeconds: (user + system) / ticksPerSecond)
    }
}
