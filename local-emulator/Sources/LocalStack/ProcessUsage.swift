import Foundation

/// A process the simulation watches (the API, the worker, or the one process of the local stack): a name for the
/// report and its pid on this machine. A stack of several processes passes one per process.
public struct MeasuredProcess: Sendable, Hashable {
    public var name: String
    public var pid: Int32
    /// Count the CPU of its child processes too (PostgreSQL: a process per connection, under the postmaster); the
    /// memory stays the process's own (the children's would count shared buffers again for each).
    public var withChildren: Bool

    public init(name: String, pid: Int32, withChildren: Bool = false) {
        self.name = name
        self.pid = pid
        self.withChildren = withChildren
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

    /// ``read(pid:)`` with the CPU of the process's children added: the exited ones it waited for (`cutime` and
    /// `cstime`, stat's 16th and 17th fields) and the running ones (every `/proc/*/stat` whose parent is `pid`).
    /// A child that exits between two samples is counted once it is waited for.
    static func readTree(pid: Int32) throws -> ProcessUsage {
        var usage = try Self.read(pid: pid)
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let own = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        usage.cpuSeconds += Self.fields(own, 13, 14).reduce(0, +) / ticks
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(entry), child != pid,
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                Self.fields(stat, 1).first == Double(pid)
            else { continue }
            usage.cpuSeconds += Self.fields(stat, 11, 12).reduce(0, +) / ticks
        }
        return usage
    }

    /// Numeric fields of a stat line, numbered from 0 = the state field after the command name (so ppid is 1,
    /// utime 11, stime 12, cutime 13, cstime 14); a missing or non-numeric one is left out.
    static func fields(_ stat: String, _ indices: Int...) -> [Double] {
        guard let close = stat.lastIndex(of: ")") else { return [] }
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        return indices.compactMap { $0 < fields.count ? Double(fields[$0]) : nil }
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
