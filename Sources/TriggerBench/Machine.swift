import Foundation

/// What the report says about the machine it ran on.
struct Machine: Sendable {
    var cores: Int
    var memory: String
    var cpu: String
    var kernel: String

    static func current() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let total = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal") }
            .flatMap { $0.split(separator: " ").compactMap { Double($0) }.first }
            .map { String(format: "%.1f GiB", $0 / 1024 / 1024) } ?? "unknown"
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "unknown")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return Machine(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memory: total,
            cpu: model,
            kernel: kernel
        )
    }
}
