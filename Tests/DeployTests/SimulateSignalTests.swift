import Foundation
import Testing

/// `ridesharing simulate --own-stack` starts PostgreSQL, the emulator, the API and workers as its children: Ctrl-C
/// (SIGINT) or SIGTERM must take them down with it. Until the 11th session it ended `simulate` alone and left the
/// whole stack running (found stopping a 10,000-driver chaos run by hand).
@Suite("simulate --own-stack: a signal tears the stack down", .timeLimit(.minutes(10)))
struct SimulateSignalTests {
    /// The pids of `pid`'s children (every thread's `children` list in /proc).
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// Whether `pid` is a process that has not exited (a zombie has exited).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        // The state follows the command's closing parenthesis.
        guard let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state != "Z" && state != "X"
    }

    @Test("a command that exits before its line: the failure says what it printed to standard error")
    func earlyExitShowsStandardError() async throws {
        let simulate = try ChildProcess(
            "ridesharing", ["simulate", "--drivers", "0"], environment: [:], name: "simulate",
            readingStandardOutput: true
        )
        defer { simulate.kill() }
        do {
            _ = try await simulate.line(where: { $0.hasPrefix("own stack:") }, "naming the own stack's URLs")
            Issue.record("simulate --drivers 0 printed the own stack's line")
        } catch let failure as ChildProcess.Failure {
            #expect(failure.description.contains("exited before naming the own stack's URLs"), "\(failure)")
            #expect(failure.description.contains("--drivers must be in 1...100000"), "\(failure)")
        }
        #expect(try await simulate.exitStatus() == 64)
    }

    @Test("SIGINT once the stack runs: simulate exits, and its API, worker, emulator and PostgreSQL are gone")
    func interrupt() async throws {
        let directory = NSTemporaryDirectory() + "simulate-signal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let simulate = try ChildProcess(
            "ridesharing",
            [
                "simulate", "--own-stack", "--workers", "1", "--drivers", "3", "--rides", "3", "--rate", "1",
                "--deadline", "600", "--stack-directory", directory,
            ],
            environment: [:],
            name: "simulate",
            readingStandardOutput: true
        )
        defer { simulate.kill() }
        _ = try await simulate.line(where: { $0.hasPrefix("own stack:") }, "naming the own stack's URLs")
        let children = Self.children(of: simulate.pid)
        let postmaster = try #require(
            try String(contentsOfFile: directory + "/pg/postmaster.pid", encoding: .utf8)
                .split(separator: "\n").first.flatMap { Int32($0) }
        )
        // The emulator, the API and the worker (migrate has finished by now).
        #expect(children.filter(Self.isAlive).count >= 3, "children \(children)")
        #expect(Self.isAlive(postmaster))
        simulate.signal(SIGINT)
        _ = try await simulate.exitStatus(timeout: .seconds(90))
        let left = children.filter(Self.isAlive)
        #expect(left.isEmpty, "still running after simulate exited: \(left)")
        #expect(!Self.isAlive(postmaster), "PostgreSQL (pid \(postmaster)) still running")
    }
}
