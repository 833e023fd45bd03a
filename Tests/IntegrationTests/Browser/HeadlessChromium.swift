import Foundation
import HyperTrackAPI
import LocalStack
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium (Debian's `chromium` package) driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: commands are JSON on file descriptor 3, replies and events on 4, each ending with a
/// NUL byte), so tests read a live page's DOM and take screenshots without a WebSocket client.
///
/// A missing browser fails the test with the command that installs it; nothing is skipped.
final class HeadlessChromium: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct State {
        var nextID = 0
        var replies: [Int: JSONValue] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let toBrowser: Int32
    private let pid: pid_t
    private let profile: URL
    /// The page's session (after ``open(_:width:height:)``).
    private let session = Mutex<String?>(nil)

    /// Where the browser is: `CHROMIUM` or Debian's `/usr/bin/chromium`.
    static func executable() throws -> String {
        let candidates = [
            ProcessInfo.processInfo.environment["CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser",
        ]
        for case let path? in candidates where FileManager.default.isExecutableFile(atPath: path) { return path }
        throw Failure(
            description: """
                headless Chromium is required for the share page's browser test and was not found: install it \
                with `apt-get update && apt-get install -y chromium` (.ci/run does), or set CHROMIUM to its path
                """
        )
    }

    /// Starts the browser (headless, a fresh profile).
    static func launch() throws -> HeadlessChromium {
        let executable = try Self.executable()
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw Failure(description: "pipe() failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        for fd in [toBrowser[1], fromBrowser[0]] { posix_spawn_file_actions_addclose(&actions, fd) }
        let arguments = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
            "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "about:blank",
        ]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        Glibc.close(toBrowser[0])
        Glibc.close(fromBrowser[1])
        guard spawned == 0 else {
            Glibc.close(toBrowser[1])
            Glibc.close(fromBrowser[0])
            throw Failure(description: "could not start \(executable): errno \(spawned)")
        }
        let browser = HeadlessChromium(toBrowser: toBrowser[1], pid: pid, profile: profile)
        let reading = fromBrowser[0]
        let thread = Thread { browser.read(from: reading) }
        thread.start()
        return browser
    }

    private init(toBrowser: Int32, pid: pid_t, profile: URL) {
        self.toBrowser = toBrowser
        self.pid = pid
        self.profile = profile
    }

    /// Opens `url` in a new page of a phone's size and returns when it started loading.
    func open(_ url: String, width: Int = 390, height: Int = 844) async throws {
        let target = try await self.send("Target.createTarget", ["url": "about:blank"])
        guard let targetID = target["targetId"].stringValue else { throw Failure(description: "no target: \(target)") }
        let attached = try await self.send("Target.attachToTarget", ["targetId": .string(targetID), "flatten": true])
        guard let session = attached["sessionId"].stringValue else { throw Failure(description: "no session") }
        self.session.withLock { $0 = session }
        try await self.send(
            "Emulation.setDeviceMetricsOverride",
            [
                "width": .number(Double(width)), "height": .number(Double(height)), "deviceScaleFactor": 2,
                "mobile": true,
            ],
            session: session
        )
        try await self.send("Page.enable", [:], session: session)
        try await self.send("Page.navigate", ["url": .string(url)], session: session)
    }

    /// Evaluates `expression` in the page and returns its value (JSON-serialisable results only).
    func evaluate(_ expression: String) async throws -> JSONValue {
        let session = try self.requireSession()
        let reply = try await self.send(
            "Runtime.evaluate",
            ["expression": .string(expression), "returnByValue": true],
            session: session
        )
        return reply["result"]["value"]
    }

    /// Polls `expression` until `condition` holds for its value, at most `timeout`; returns the value.
    @discardableResult
    func waitFor(
        _ what: String,
        _ expression: String,
        timeout: Duration = .seconds(60),
        _ condition: (JSONValue) -> Bool
    ) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        var value: JSONValue = .null
        while ContinuousClock.now < deadline {
            value = try await self.evaluate(expression)
            if condition(value) { return value }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "timed out waiting for \(what); the page shows \(value)")
    }

    /// Saves a PNG of the page.
    func screenshot(to file: URL) async throws {
        let session = try self.requireSession()
        let reply = try await self.send("Page.captureScreenshot", ["format": "png"], session: session)
        guard let base64 = reply["data"].stringValue, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot")
        }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    /// Ends the browser.
    func close() {
        _ = try? self.write(["id": 0, "method": "Browser.close"])
        kill(self.pid, SIGTERM)
        // Reaped without blocking for ever: a browser that ignores SIGTERM would hold this thread (one of the two
        // of Swift's cooperative pool on a 2-core machine) and the test run with it. Polling here is the clock of
        // that 5 s grace, not a wait for an outcome of the test.
        var status: Int32 = 0
        var reaped = false
        for _ in 0..<100 where !reaped {
            reaped = waitpid(self.pid, &status, WNOHANG) == self.pid
            if !reaped { usleep(50_000) }
        }
        if !reaped {
            kill(self.pid, SIGKILL)
            waitpid(self.pid, &status, 0)
        }
        Glibc.close(self.toBrowser)
        try? FileManager.default.removeItem(at: self.profile)
    }

    @discardableResult
    private func send(_ method: String, _ params: [String: JSONValue], session: String? = nil) async throws -> JSONValue
    {
        let id = self.state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        var message: [String: JSONValue] = [
            "id": .number(Double(id)), "method": .string(method), "params": .object(params),
        ]
        if let session { message["sessionId"] = .string(session) }
        try self.write(.object(message))
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let (reply, closed) = self.state.withLock { ($0.replies.removeValue(forKey: id), $0.closed) }
            if let reply {
                if reply["error"] != .null { throw Failure(description: "\(method): \(reply["error"])") }
                return reply["result"]
            }
            if closed { throw Failure(description: "the browser exited during \(method)") }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw Failure(description: "the browser did not answer \(method)")
    }

    private func requireSession() throws -> String {
        guard let session = self.session.withLock({ $0 }) else { throw Failure(description: "no page is open") }
        return session
    }

    private func write(_ message: JSONValue) throws {
        var data = try JSONEncoder().encode(message)
        data.append(0)
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(self.toBrowser, bytes.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else { throw Failure(description: "the browser's pipe is closed") }
                offset += written
            }
        }
    }

    /// The reading thread: splits the browser's output at NUL bytes and keeps the replies (events are dropped).
    private func read(from fd: Int32) {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let end = pending.firstIndex(of: 0) {
                let message = pending[pending.startIndex..<end]
                pending = Data(pending[pending.index(after: end)...])
                guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(message)),
                    let id = value["id"].doubleValue
                else { continue }
                self.state.withLock { $0.replies[Int(id)] = value }
            }
        }
        Glibc.close(fd)
        self.state.withLock { $0.closed = true }
    }
}
