import Foundation

/// Nanoseconds on the monotonic clock: comparable across tasks and connections of one process.
func monotonicNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

/// Latency samples in nanoseconds and their percentiles.
struct LatencySummary: Sendable {
    var count: Int
    var p50: Double
    var p90: Double
    var p99: Double
    var max: Double

    /// Summarises samples (nanoseconds) into milliseconds.
    init(nanoseconds samples: [Int64]) {
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let index = min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))
            return Double(sorted[index]) / 1_000_000
        }
        self.count = sorted.count
        self.p50 = percentile(0.50)
        self.p90 = percentile(0.90)
        self.p99 = percentile(0.99)
        self.max = sorted.last.map { Double($0) / 1_000_000 } ?? .nan
    }
}

/// The median of repeated measurements.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    if sorted.count % 2 == 1 { return sorted[sorted.count / 2] }
    return (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Formats a number for the report.
func format(_ value: Double, digits: Int = 2) -> String {
    guard value.isFinite else { return "n/a" }
    return String(format: "%.\(digits)f", value)
}

/// The process's resident memory, current and peak, in MiB (from /proc/self/status).
func residentMemoryMiB() -> (current: Double, peak: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (.nan, .nan) }
    func value(_ key: String) -> Double {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return .nan }
        let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? .nan
        return kilobytes / 1024
    }
    return (value("VmRSS:"), value("VmHWM:"))
}
