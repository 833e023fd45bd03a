import EmbeddedPostgres
import Foundation

/// The `TriggerRuntimeTestWorker` executable, started as a child process; its `started/finished ID` lines are
/// observable events.
final class WorkerProcess: Sendable {
    struct NotBuilt: Error, CustomStringConvertible {
        var description: String
    }

    let lines = Observations<String>()
    private let process: Process
    private let exit: ProcessExit

    /// Starts the worker with `environment` added to this process's.
    init(environment: [String: String]) throws {
        let executable = try Self.locate()
        let process = Process()
        process.executableURL = executable
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        let lines = self.lines
        let buffer = LineBuffer()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            for line in buffer.append(data) { lines.append(line) }
        }
        self.exit = ProcessExit(observing: process)
        try process.run()
        self.process = process
    }

    var pid: Int32 { self.process.processIdentifier }

    /// Kills the process if it still runs (a test's cleanup on every path).
    func stop() {
        if self.process.isRunning { kill(self.process.processIdentifier, SIGKILL) }
    }

    func signal(_ signal: Int32) {
        kill(self.process.processIdentifier, signal)
    }

    /// Waits for the process to exit and returns its status; throws if it has not exited after two minutes.
    func waitForExit() async throws -> Int32 {
        try await self.exit.status("the test worker")
    }

    /// IDs from the worker's `started ID` / `finished ID` lines.
    func ids(_ prefix: String) -> [Int] {
        self.lines.entries.compactMap { line in
            line.hasPrefix(prefix + " ") ? Int(line.dropFirst(prefix.count + 1)) : nil
        }
    }

    /// The build directory's `TriggerRuntimeTestWorker`: beside the running test binary (Linux), else in the
    /// package's `.build/debug`, or in `TEST_WORKER_DIR`.
    static func locate() throws -> URL {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["TEST_WORKER_DIR"] {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        candidates.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug"))
        for directory in candidates {
            let executable = directory.appendingPathComponent("TriggerRuntimeTestWorker")
            if FileManager.default.isExecutableFile(atPath: executable.path) { return executable }
        }
        throw NotBuilt(
            description: "TriggerRuntimeTestWorker not found in \(candidates.map(\.path)): run the tests with "
                + "`swift test` (which builds it) or `swift build --build-tests` first"
        )
    }
}
