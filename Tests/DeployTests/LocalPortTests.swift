import Foundation
import Testing

/// `ridesharing local` with its embedded PostgreSQL keeps the database's port across restarts, so a URL taken from
/// its banner or stack.json (as `events` and `functions call` do) stays valid.
@Suite("Deploy: the local stack keeps its database port", .timeLimit(.minutes(10)))
struct LocalPortTests {
    @Test("the second start of the same data folder has the same database URL")
    func samePort() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("local-port-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        var urls: [String] = []
        for _ in 0..<2 {
            let local = try ChildProcess(
                "ridesharing",
                ["local", "--port", "0", "--emulator-port", "0", "--clock-rate", "0", "--data", data],
                environment: ["LOG_FORMAT": "json", "LOG_LEVEL": "info"],
                name: "ridesharing local"
            )
            defer { local.kill() }
            _ = try await local.httpPort()
            var url: String?
            try await LocalCommandTests.eventually("stack.json written") {
                guard let file = FileManager.default.contents(atPath: data + "/stack.json"),
                    let object = try? JSONSerialization.jsonObject(with: file) as? [String: Any]
                else { return false }
                url = object["databaseURL"] as? String
                return url != nil
            }
            urls.append(try #require(url))
            local.signal(SIGTERM)
            #expect(try await local.exitStatus() == 0)
        }
        #expect(urls[0] == urls[1], "\(urls)")
    }
}
