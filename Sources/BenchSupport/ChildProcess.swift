import EmbeddedPostgres
import Foundation
import Synchronization

/// A process of ours under soak (`ridesharing serve`, `ridesharing local`, `hypertrack-emulator`): started from the
/// benchmark's own build folder, its output copied to a log file, ready when a line of its output says so.
///
/// Started by `EmbeddedPostgres.Spawn`, not Foundation's `Process`: `simulate` restarts killed workers while it holds
/// ~10,000 sockets, and `Process.run()` of this toolchain crashed there (see `Spawn`).
public final class ChildProcess: Sendable {
    public let name: String
    public let pid: Int32
    public let logPath: String
    private let exit: ProcessExit
    private let ready: ReadyLine

    /// Starts `executable` (a product next to this benchmark) and returns once a line containing `readyMarker`
    /// was printed, or throws after `timeout` or when the process ends first.
    ///
    /// A `niceness` other than 0 starts it through `nice -n` (every thread it makes inherits the value; Linux's
    /// `setpriority` on a running process changes one thread) and checks that it got the value: `nice` runs the
    /// command at the old priority when it may not set the new one.
    public static func start(
        _ name: String,
        executable: String,
        arguments: [String],
        environment: [String: String],
        readyMarker: String,
        logDirectory: String,
        timeout: Duration = .seconds(120),
        niceness: Int32 = 0
    ) async throws -> ChildProcess {
        let child = try ChildProcess(
            name: name,
            executable: executable,
            arguments: arguments,
            environment: environment,
            readyMarker: readyMarker,
            logDirectory: logDirectory,
            niceness: niceness
        )
        do {
            try await child.ready.wait(timeout: timeout)
            if niceness != 0 {
                let got = try Self.niceness(pid: child.pid)
                guard got == niceness else {
                    throw BenchError("it runs at nice \(got), not \(niceness) (a negative value needs CAP_SYS_NICE)")
                }
            }
        } catch {
            child.terminate()
            throw BenchError("\(name) did not become ready: \(error) (its output: \(child.logPath))")
        }
        return child
    }

    /// A process's nice value (its main thread's), field 19 of `/proc/PID/stat`.
    public static func niceness(pid: Int32) throws -> Int32 {
        let fields = try Self.statFields(pid: pid)
        guard fields.count > 16, let nice = Int32(fields[16]) else { throw BenchError("no nice in /proc/\(pid)/stat") }
        return nice
    }

    /// The fields of `/proc/PID/stat` from the third (the state) on: the command name before them is in parentheses
    /// and may hold spaces, so they start after the last ')'.
    static func statFields(pid: Int32) throws -> [Substring] {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw BenchError("unreadable /proc/\(pid)/stat") }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    private init(
        name: String,
        executable: String,
        arguments: [String],
        environment: [String: String],
        readyMarker: String,
        logDirectory: String,
        niceness: Int32
    ) throws {
        self.name = name
        self.logPath = logDirectory + "/\(name).log"
        guard FileManager.default.createFile(atPath: self.logPath, contents: nil) else {
            throw BenchError("cannot create \(self.logPath)")
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: self.logPath))
        let executableURL = try productURL(executable)
        // The pipe's ends are close-on-exec (another child spawned meanwhile must not hold the write end, or the
        // reader would not see this child's end); this child gets the write end as its output by `dup2`.
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchError("pipe() failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let reader = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        defer { close(ends[1]) }
        self.ready = ReadyLine(marker: readyMarker)
        do {
            let nice = niceness == 0 ? [] : ["/usr/bin/nice", "-n", "\(niceness)"]
            self.pid = try Spawn.start(
                nice + [executableURL.path] + arguments,
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                output: .descriptor(ends[1])
            )
        } catch {
            throw BenchError("cannot start \(name): \(error)")
        }
        self.exit = ProcessExit(waitingFor: self.pid)
        let ready = self.ready
        // A thread of its own: the read blocks, and the child writes until it exits.
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                log.write(chunk)
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    ready.check(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            ready.ended()
            try? log.close()
        }
    }

    /// Whether the process has not exited yet.
    public var isRunning: Bool { self.exit.exited == nil }

    /// SIGTERM (graceful shutdown), without waiting.
    public func terminate() {
        if self.isRunning { _ = kill(self.pid, SIGTERM) }
    }

    /// The resident set (VmRSS) in KiB, from `/proc/PID/status`.
    public func residentKiB() throws -> Int {
        try Self.residentKiB(pid: self.pid)
    }

    public static func residentKiB(pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = line.split(separator: " ").compactMap({ Int($0) }).first
        else { throw BenchError("no VmRSS for process \(pid)") }
        return kib
    }

    /// CPU time (user + system) in seconds, from `/proc/PID/stat`.
    public func cpuSeconds() throws -> Double {
        let fields = try Self.statFields(pid: self.pid)
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw BenchError("unreadable /proc/\(self.pid)/stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits until the process exits, however that happens; its status (the signal number when a signal ended it).
    public func exited() async throws -> Int32 {
        try await self.exit.status(timeout: .seconds(7 * 86_400), self.name)
    }

    /// The same, throwing after `timeout`.
    public func exited(within timeout: Duration) async throws -> Int32 {
        try await self.exit.status(timeout: timeout, self.name)
    }

    /// SIGKILL (no shutdown at all, as a crash or the OOM killer), then waits for the exit.
    public func crash(timeout: Duration = .seconds(30)) async throws {
        guard self.isRunning else { return }
        _ = kill(self.pid, SIGKILL)
        _ = try await self.exit.status(timeout: timeout, self.name)
    }

    /// SIGTERM, then waits for the exit (graceful shutdown); SIGKILL after `timeout`.
    public func stop(timeout: Duration = .seconds(60)) async throws {
        guard self.isRunning else { return }
        self.terminate()
        do {
            _ = try await self.exit.status(timeout: timeout, self.name)
        } catch {
            kill(self.pid, SIGKILL)
            throw error
        }
    }
}

/// Resumes a waiter once a line containing the marker was seen, or with `false` once the output ended (the
/// process exited) or the wait was cancelled.
final class ReadyLine: Sendable {
    private struct State {
        var outcome: Bool?
        var waiter: CheckedContinuation<Bool, Never>?
    }
    private let marker: String
    private let state = Mutex(State())

    init(marker: String) { self.marker = marker }

    func check(_ line: String) {
        if line.contains(self.marker) { self.settle(true) }
    }

    /// The output ended without the marker.
    func ended() { self.settle(false) }

    private func settle(_ outcome: Bool) {
        let waiter = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Waits for the line; throws when the output ends first or after `timeout`.
    func wait(timeout: Duration) async throws {
        let seen = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let outcome = self.state.withLock { state -> Bool? in
                            if state.outcome == nil { state.waiter = continuation }
                            return state.outcome
                        }
                        if let outcome { continuation.resume(returning: outcome) }
                    }
                } onCancel: {
                    self.settle(false)
                }
            }
            group.addTask {
                // The deadline itself: this sleep is the clock of the timeout, not a wait for an outcome.
                try await Task.sleep(for: timeout)
                throw BenchError("no line with \"\(self.marker)\" within \(timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        guard seen else { throw BenchError("the output ended before a line with \"\(self.marker)\"") }
    }
}
