import Foundation

/// Starts a child process with `posix_spawn`: standard input from /dev/null, standard output and error to one place
/// (or ours), every other descriptor closed in the child, signal dispositions and mask reset to the defaults.
///
/// Not Foundation's `Process`, for two reasons seen here. Its `run()` reads `/proc/self/fd` to find the descriptors
/// to close, and this toolchain's version (before swift-corelibs-foundation PR #5472) copies a whole 256-byte
/// `d_name` out of each `readdir` record: in a process with ~10,000 sockets open (`ridesharing simulate` at 10,000
/// drivers) the copy ran past glibc's buffer into an unmapped page and `simulate` died with SIGSEGV while starting a
/// killed worker again, twice in the 15th session's chaos runs. And a server that `pg_ctl` leaves running must not
/// inherit a pipe or socket of ours. `posix_spawn_file_actions_addclosefrom_np` closes in the child, in one
/// `close_range` call, also what other threads open while we spawn.
public enum Spawn {
    /// Where the child's standard output and error go.
    public enum Output: Sendable {
        /// A file, created or truncated.
        case file(String)
        /// A descriptor of ours (for example a pipe's write end), duplicated onto 1 and 2 in the child.
        case descriptor(Int32)
        /// Ours: the child writes where we do.
        case inherited
    }

    /// Starts `argv[0]` (a path) with `argv` and, when given, exactly `environment` (otherwise ours); returns its pid.
    /// The caller reaps it (`waitpid`, or ``ProcessExit/init(waitingFor:)``).
    public static func start(_ argv: [String], environment: [String: String]? = nil, output: Output) throws -> pid_t {
        precondition(!argv.isEmpty, "a command needs at least its executable")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch output {
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .descriptor(let descriptor):
            posix_spawn_file_actions_adddup2(&actions, descriptor, 1)
        case .inherited:
            break
        }
        if case .inherited = output {} else { posix_spawn_file_actions_adddup2(&actions, 1, 2) }
        if let closeFrom = Self.closeFrom {
            _ = closeFrom(&actions, 3)
        } else {
            for descriptor in Self.openDescriptors() where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
        // A parent that handles SIGTERM or SIGINT through a dispatch source (swift-service-lifecycle) ignores them,
        // and ignored signals survive exec: without the reset a child would shrug off `terminate()`.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        defer { cArguments.forEach { free($0) } }
        var pid = pid_t()
        let spawned: Int32
        if let environment {
            var cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") }
            cEnvironment.append(nil)
            defer { cEnvironment.forEach { free($0) } }
            spawned = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        } else {
            spawned = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environ)
        }
        guard spawned == 0 else {
            throw EmbeddedPostgresError(.commandFailed, "could not start \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        return pid
    }

    /// A `waitpid` status as Foundation's `Process.terminationStatus` gives it: the exit code, or the number of the
    /// signal that ended the process.
    public static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// Whether a `waitpid` status is a normal exit with code 0.
    static func succeeded(_ status: Int32) -> Bool { status & 0x7f == 0 && (status >> 8) & 0xff == 0 }

    /// Waits for `pid` to end, blocking the calling thread; its raw `waitpid` status.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not
    /// import.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self
        )
    }()

    /// This process's open file descriptors (from /proc/self/fd), where `closeFrom` is missing.
    static func openDescriptors() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }
    }
}
