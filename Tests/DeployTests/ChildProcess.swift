import EmbeddedPostgres
import Foundation

/// A built executable of this package (`ridesharing`, `hypertrack-emulator`) run as a child process; its standard
/// error lines (the JSON logs) are kept and can be awaited.
///
/// The binaries are found beside the running test bundle (`swift test` and `swift build --build-tests` build every
/// product into the same directory), else in `.build/debug`, else in `DEPLOY_TEST_BIN_DIR`. When none has them
/// the test fails with a message saying how to build them; it never skips.
final class ChildProcess: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let name: String
    private let process = Process()
    private let lock = NSLock()
    private var lines: [String] = []
    private var stdoutLines = LineSplitter()
    private var waiters: [(id: Int, predicate: @Sendable (String) -> Bool, continuation: CheckedContinuation<String?, Never>)] = []
    private var nextWaiter = 0
    private var ended = false
    /// The last 30 lines of standard error when standard output is the one read.
    private var logTail: [String] = []
    /// Signalled when standard error ends, when standard output is the one read (nil otherwise).
    private let logsEnded: DispatchSemaphore?
    private let exit: ProcessExit

    /// Starts `executable` with `arguments`, the environment `environment` added to this process's; its standard
    /// error is read (the logs), or its standard output when `readingStandardOutput` (a command's printed lines).
    init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        name: String,
        readingStandardOutput: Bool = false
    ) throws {
        self.name = name
        self.process.executableURL = try Self.locate(executable)
        self.process.arguments = arguments
        self.process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        // Reading the printed lines, the logs still say why a command exited early (the 46th session's CI saw
        // `simulate` exit before its "own stack:" line, with nothing to say why): their last lines are kept.
        let logs = readingStandardOutput ? Pipe() : nil
        self.logsEnded = logs == nil ? nil : DispatchSemaphore(value: 0)
        if let logs {
            self.process.standardOutput = errors
            self.process.standardError = logs
        } else {
            self.process.standardError = errors
            self.process.standardOutput = FileHandle.nullDevice
        }
        self.exit = ProcessExit(observing: self.process)
        try self.process.run()
        // A blocking read loop on a thread of its own: it sees the end of the output reliably (a readabilityHandler
        // is not always called at EOF, and a test waiting for the end then hung).
        let reader = errors.fileHandleForReading
        Thread.detachNewThread { [weak self] in
            while true {
                let data = reader.availableData  // blocks until some output is there; empty at the end
                self?.receive(data)
                if data.isEmpty { return }
            }
        }
        if let logs {
            let reader = logs.fileHandleForReading
            Thread.detachNewThread { [weak self] in
                var splitter = LineSplitter()
                while true {
                    let data = reader.availableData
                    // At the end, a last line without a newline (a crash's message can be one) is kept too.
                    let lines = data.isEmpty ? splitter.finish() : splitter.append(data)
                    guard let self else { return }
                    self.lock.withLock {
                        self.logTail.append(contentsOf: lines)
                        if self.logTail.count > 30 { self.logTail.removeFirst(self.logTail.count - 30) }
                    }
                    if data.isEmpty {
                        self.logsEnded?.signal()
                        return
                    }
                }
            }
        }
    }

    deinit { self.kill() }

    private func receive(_ data: Data) {
        var ready: [CheckedContinuation<String?, Never>] = []
        var results: [String?] = []
        self.lock.lock()
        for line in data.isEmpty ? self.stdoutLines.finish() : self.stdoutLines.append(data) {
            self.lines.append(line)
            var remaining: [(id: Int, predicate: @Sendable (String) -> Bool, continuation: CheckedContinuation<String?, Never>)] = []
            for waiter in self.waiters {
                if waiter.predicate(line) {
                    ready.append(waiter.continuation)
                    results.append(line)
                } else {
                    remaining.append(waiter)
                }
            }
            self.waiters = remaining
        }
        if data.isEmpty {
            self.ended = true
            for waiter in self.waiters { ready.append(waiter.continuation); results.append(nil) }
            self.waiters = []
        }
        self.lock.unlock()
        for (continuation, result) in zip(ready, results) { continuation.resume(returning: result) }
    }

    /// The last 30 lines read, and the logs' last lines when those are not what is read: for a failure's message.
    private var recent: String {
        // A command that exited closes both outputs: give the logs' reader a moment to take their last lines (a
        // failure's message only; the wait ends early when they end, and a grandchild holding them open costs 2 s).
        if let logsEnded = self.logsEnded, logsEnded.wait(timeout: .now() + 2) == .success { logsEnded.signal() }
        let (lines, logs) = self.lock.withLock { (self.lines.suffix(30), self.logTail) }
        let output = lines.joined(separator: "\n")
        return logs.isEmpty ? output : output + "\n--- its standard error's last lines:\n" + logs.joined(separator: "\n")
    }

    /// Every line so far.
    var output: [String] {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.lines
    }

    /// The first line (past or future) matching `predicate`; fails if the process closes its output first or
    /// after `timeout`. The wait answers cancellation (a test's time limit): a continuation left waiting for a line
    /// that never comes would hold the whole test run.
    func line(
        where predicate: @escaping @Sendable (String) -> Bool,
        _ what: String,
        timeout: Duration = .seconds(180)
    ) async throws -> String {
        let found: String?? = try await withThrowingTaskGroup(of: String??.self) { group in
            group.addTask { .some(await self.next(where: predicate)) }
            group.addTask {
                // The deadline itself: this sleep is the clock of the timeout, not a wait for an outcome.
                try await Task.sleep(for: timeout)
                return .none
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        switch found {
        case .none:
            throw Failure(description: "\(self.name): no line \(what) within \(timeout); its output:\n\(self.recent)")
        case .some(.none):
            try Task.checkCancellation()
            throw Failure(description: "\(self.name) exited before \(what); its output:\n\(self.recent)")
        case .some(.some(let line)):
            return line
        }
    }

    /// The first matching line; nil when the output ends or the waiting task is cancelled.
    private func next(where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        let id = self.lock.withLock {
            self.nextWaiter += 1
            return self.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                self.lock.lock()
                if let line = self.lines.first(where: predicate) {
                    self.lock.unlock()
                    continuation.resume(returning: line)
                } else if self.ended || Task.isCancelled {
                    self.lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    self.waiters.append((id, predicate, continuation))
                    self.lock.unlock()
                }
            }
        } onCancel: {
            self.lock.lock()
            let index = self.waiters.firstIndex { $0.id == id }
            let waiter = index.map { self.waiters.remove(at: $0) }
            self.lock.unlock()
            waiter?.continuation.resume(returning: nil)
        }
    }

    /// The port from the JSON log line "HTTP listening".
    func httpPort() async throws -> Int {
        let line = try await self.line(where: { $0.contains("\"HTTP listening\"") }, "listening on HTTP")
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let metadata = object["metadata"] as? [String: Any],
            let text = metadata["http.port"] as? String, let port = Int(text), port > 0
        else { throw Failure(description: "\(self.name): no port in \(line)") }
        return port
    }

    /// The port of `/metrics` on its own port, from the "metrics listening" line.
    func metricsPort() async throws -> Int {
        let line = try await self.line(where: { $0.contains("\"metrics listening\"") }, "listening for /metrics")
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let metadata = object["metadata"] as? [String: Any],
            let text = metadata["metrics.port"] as? String, let port = Int(text), port > 0
        else { throw Failure(description: "\(self.name): no metrics port in \(line)") }
        return port
    }

    /// The process id.
    var pid: Int32 { self.process.processIdentifier }

    func signal(_ signal: Int32) {
        Foundation.kill(self.process.processIdentifier, signal)
    }

    /// Kills the process if it still runs (cleanup on every path).
    func kill() {
        if self.process.isRunning { Foundation.kill(self.process.processIdentifier, SIGKILL) }
    }

    /// Waits for the process to exit (through `terminationHandler`: `waitUntilExit` was seen to never return for
    /// a child that had exited while other tests spawned processes); throws after `timeout`.
    func exitStatus(timeout: Duration = .seconds(120)) async throws -> Int32 {
        do {
            return try await self.exit.status(timeout: timeout, self.name)
        } catch let timedOut as ProcessExit.TimedOut {
            self.kill()
            throw Failure(description: "\(timedOut) (killed); its output:\n\(self.recent)")
        }
    }

    /// Where the package's products are.
    static func locate(_ executable: String) throws -> URL {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["DEPLOY_TEST_BIN_DIR"] {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        candidates.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        candidates.append(Self.packageRoot.appendingPathComponent(".build/debug"))
        for directory in candidates {
            let url = directory.appendingPathComponent(executable)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw Failure(
            description: "\(executable) not found in \(candidates.map(\.path)): run `swift test` (it builds every "
                + "product) or `swift build --build-tests` first, or set DEPLOY_TEST_BIN_DIR"
        )
    }

    /// The package's root folder (for `deploy/`).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
}

/// Splits a stream of bytes into lines; the one splitter of both outputs' readers.
struct LineSplitter {
    private var pending = Data()

    /// The complete lines `data` ends, without their newlines.
    mutating func append(_ data: Data) -> [String] {
        self.pending.append(data)
        var lines: [String] = []
        while let newline = self.pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: self.pending[self.pending.startIndex..<newline], as: UTF8.self))
            self.pending.removeSubrange(...newline)
        }
        return lines
    }

    /// At the end of the stream: the last line when it had no newline.
    mutating func finish() -> [String] {
        defer { self.pending = Data() }
        return self.pending.isEmpty ? [] : [String(decoding: self.pending, as: UTF8.self)]
    }
}
