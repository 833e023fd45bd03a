import EmbeddedPostgres
import Foundation
import PostgresNIO
import Testing

/// The README's five-minute walkthrough, run as written (the block between its `walkthrough` markers) by bash
/// against a fresh `ridesharing local` on a manual clock: a newcomer's first steps cannot rot.
@Suite("Deploy: the README walkthrough runs", .timeLimit(.minutes(10)))
struct WalkthroughTests {
    /// The bash block of the README between `<!-- walkthrough -->` and `<!-- /walkthrough -->`.
    static func script() throws -> String {
        let readme = try String(
            contentsOf: ChildProcess.packageRoot.appendingPathComponent("README.md"),
            encoding: .utf8
        )
        guard let start = readme.range(of: "<!-- walkthrough -->\n```bash\n"),
            let end = readme.range(of: "```\n<!-- /walkthrough -->", range: start.upperBound..<readme.endIndex)
        else { throw ChildProcess.Failure(description: "README.md has no walkthrough block between its markers") }
        return String(readme[start.upperBound..<end.lowerBound])
    }

    @Test("rider, two drivers on the map, book, accept, advance the clock, summary and share link")
    func walkthrough() async throws {
        let script = try Self.script()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("walkthrough-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: data) }
        try await TestDatabase.shared.withDatabase(logger: Stack.logger) { _, configuration in
            let url = try await TestDatabase.shared.connectionURL(database: configuration.database ?? "postgres")
            let local = try ChildProcess(
                "ridesharing",
                [
                    "local", "--database-url", url, "--port", "0", "--emulator-port", "0", "--clock-rate", "0",
                    "--data", data,
                ],
                environment: ["LOG_FORMAT": "json", "LOG_LEVEL": "info", "WORKER_POLL_INTERVAL_MS": "200"],
                name: "ridesharing local"
            )
            defer { local.kill() }
            let api = "http://127.0.0.1:\(try await local.httpPort())"
            var emulator: String?
            try await LocalCommandTests.eventually("stack.json written") {
                guard let file = FileManager.default.contents(atPath: data + "/stack.json"),
                    let object = try? JSONSerialization.jsonObject(with: file) as? [String: Any]
                else { return false }
                emulator = object["emulatorURL"] as? String
                return emulator != nil
            }
            let (status, output) = try await Self.bash(script, environment: ["API": api, "EMULATOR": emulator ?? ""])
            #expect(status == 0, "the walkthrough failed:\n\(output)")
            #expect(!output.contains("timed out"), "\(output)")
            #expect(output.contains("'fare': {'amount': "), "\(output)")
            #expect(output.contains("COMPLETED"), "\(output)")
            #expect(output.split(separator: "\n").last?.hasPrefix("https://") == true, "a share link last: \(output)")
            local.signal(SIGTERM)
            #expect(try await local.exitStatus() == 0)
        }
    }

    /// Runs `script` with `bash -eu -o pipefail`; returns its status and its output (stdout and stderr, merged).
    static func bash(_ script: String, environment: [String: String]) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-eu", "-o", "pipefail", "-c", script]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // Output to a file, not a pipe: reading a pipe to its end waits for every process holding it, and a
        // background process of the script would keep it open (and the test run waiting) forever.
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("walkthrough-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: outputPath.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputPath) }
        let output = try FileHandle(forWritingTo: outputPath)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        let exit = ProcessExit(observing: process)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let status = try await exit.status(timeout: .seconds(180), "the README walkthrough")
        let text = String(decoding: (try? Data(contentsOf: outputPath)) ?? Data(), as: UTF8.self)
        return (status, text)
    }
}
