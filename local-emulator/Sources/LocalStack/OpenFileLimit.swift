import Foundation

/// The process's open-file limit. Every simulated driver holds a stream (a socket here, another in the API), so a
/// city of 10,000 needs more than the usual soft limit of 1,024.
public enum OpenFileLimit {
    /// Raises the soft limit to at least `wanted` (up to the hard limit); throws, naming both, when the hard limit
    /// is lower. Returns the soft limit now in force.
    @discardableResult
    public static func raise(toAtLeast wanted: Int) throws -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw LocalStackError.invalidPayload("getrlimit(RLIMIT_NOFILE) failed: errno \(errno)")
        }
        if limit.rlim_cur >= rlim_t(wanted) { return Int(limit.rlim_cur) }
        guard limit.rlim_max >= rlim_t(wanted) else {
            throw LocalStackError.invalidPayload(
                "\(wanted) open files are needed but the hard limit is \(limit.rlim_max) (raise it: ulimit -Hn)"
            )
        }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw LocalStackError.invalidPayload("setrlimit(RLIMIT_NOFILE) to \(limit.rlim_max) failed: errno \(errno)")
        }
        return Int(limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit, as far as the system lets it; returns the soft limit in force.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return Int(raised.rlim_cur) }
        }
        return Int(limit.rlim_cur)
    }
}
