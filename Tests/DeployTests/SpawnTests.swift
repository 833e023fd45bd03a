import EmbeddedPostgres
import Foundation
import Testing

/// `Spawn` starts `simulate`'s and the benchmarks' children and `pg_ctl` in place of Foundation's `Process` (whose
/// `run()` crashed in a process with ~10,000 sockets open): what a child gets from us and what its end reports.
@Suite("Spawn: children started without Foundation's Process")
struct SpawnTests {
    /// Runs `/bin/sh -c script` with its output in a temporary file; its decoded status and output.
    private func shell(_ script: String) async throws -> (status: Int32, output: String) {
        let path = NSTemporaryDirectory() + "spawn-test-\(UInt64.random(in: 0...UInt64.max)).out"
        defer { unlink(path) }
        let pid = try Spawn.start(["/bin/sh", "-c", script], output: .file(path))
        let status = try await ProcessExit(waitingFor: pid).status(timeout: .seconds(60), script)
        return (status, try String(contentsOfFile: path, encoding: .utf8))
    }

    @Test("an exit code and a killing signal are reported as Process reports them")
    func statuses() async throws {
        #expect(try await self.shell("exit 0").status == 0)
        #expect(try await self.shell("exit 3").status == 3)
        #expect(try await self.shell("kill -KILL $$").status == SIGKILL)
    }

    @Test("the child has only standard input, output and error: our other descriptors are closed in it")
    func descriptorsClosed() async throws {
        let ours = open("/dev/null", O_RDONLY)  // inheritable: no close-on-exec
        try #require(ours > 2)
        defer { close(ours) }
        let result = try await self.shell("ls /proc/$$/fd")
        #expect(result.status == 0)
        #expect(result.output.split(separator: "\n").sorted() == ["0", "1", "2"])
    }

    @Test("a signal we ignore is back to its default in the child (so a child of a service still stops on SIGTERM)")
    func signalsReset() async throws {
        // SIGUSR2: nothing in the test process handles it, so ignoring it for a moment disturbs nothing.
        let previous = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, previous) }
        let result = try await self.shell("grep SigIgn /proc/$$/status")
        let mask = try #require(UInt64(result.output.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", radix: 16))
        #expect(mask & (1 << UInt64(SIGUSR2 - 1)) == 0, "SigIgn \(String(mask, radix: 16))")
    }

    @Test("a command that cannot start throws and names it")
    func missingExecutable() {
        #expect(throws: (any Error).self) {
            _ = try Spawn.start(["/nonexistent/command"], output: .file("/dev/null"))
        }
    }
}
