import AsyncHTTPClient
import EmbeddedPostgres
import Foundation
import LocalStack
import Logging
import PostgresNIO
import Synchronization

/// The part both scenarios share: the load against a running API, memory sampled as it goes, the worker's drain
/// awaited, the processes stopped gracefully, and the checks.
struct Soak: Sendable {
    /// One delivery per worker transaction. With the default (32), location events of different drivers share a
    /// transaction, two lanes lock `driver_positions` rows in opposite orders, and PostgreSQL's deadlock detector
    /// aborts one after `deadlock_timeout` (1 s): the first soak run measured 952 deadlocks and a drain of about
    /// 50 deliveries/s. A defect of the location path, not of memory, since fixed (app migration 0014 keys a
    /// device's position events as one document, so no two lanes hold the same driver); kept at 1 so that a new
    /// run compares with the published one.
    static let transactionBatchSize = "1"

    let plan: Plan
    let name: String
    let summary: String
    let apiURL: String
    let webhookSecret: String
    let databaseURL: String
    let processes: [ChildProcess]
    let logger: Logger
    /// Where sign-in codes are read: the SMS webhook inbox `serve` sends to; `nil`: the local stack's outbox route.
    var codes: SignInFlow.Codes? = nil

    func run() async throws -> ScenarioResult {
        let client = PostgresClient(
            configuration: try DatabaseURL.clientConfiguration(self.databaseURL), backgroundLogger: self.logger
        )
        return try await withThrowingTaskGroup(of: ScenarioResult?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await self.run(queue: QueueStats(client: client, logger: self.logger))
        }
    }

    private func run(queue: QueueStats) async throws -> ScenarioResult {
        let sampler = Sampler(
            processes: self.processes.map { ($0.name, $0.pid) }, queue: queue, step: self.plan.sampleStep
        )
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: self.plan.users))
        )
        let load = APILoad(
            baseURL: self.apiURL, webhookSecret: self.webhookSecret, http: http, counters: .init(), codes: self.codes
        )
        await sampler.sample(requests: 0)
        let cpuBefore = try self.processes.map { try $0.cpuSeconds() }
        let started = ContinuousClock.now
        do {
            try await load.run(users: self.plan.users, budget: self.plan.requests) { await sampler.requestsSent($0) }
        } catch {
            try await http.shutdown()
            throw error
        }
        let loadSeconds = (ContinuousClock.now - started).secondsValue
        try await http.shutdown()
        let counts = try await queue.drained(timeout: .seconds(900))
        let sent = load.counters.sent.load(ordering: .relaxed)
        await sampler.sample(requests: sent)
        let cpu = try zip(self.processes, cpuBefore).map { try $0.cpuSeconds() - $1 }
        var stops: [Double] = []
        for process in self.processes.reversed() {
            let stopping = ContinuousClock.now
            try await process.stop()
            stops.append((ContinuousClock.now - stopping).secondsValue)
        }
        return ScenarioResult(
            name: self.name, summary: self.summary, plan: self.plan, processNames: self.processes.map(\.name),
            samples: await sampler.samples, requests: sent, loadSeconds: loadSeconds,
            unexpected: load.counters.unexpected.load(ordering: .relaxed),
            lastProblem: load.counters.lastProblem.withLock { $0 }, queue: counts,
            cpuSeconds: Dictionary(uniqueKeysWithValues: zip(self.processes.map(\.name), cpu)),
            stopSeconds: Dictionary(uniqueKeysWithValues: zip(self.processes.reversed().map(\.name), stops))
        )
    }
}

/// A free TCP port on 127.0.0.1 (bound to port 0, read back, closed).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SoakError("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw SoakError("bind() to a free port failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A product of this build, next to the benchmark's own executable.
func productURL(_ name: String) throws -> URL {
    let url = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: url.path) else {
        throw SoakError("\(url.path) is missing: build every product first (`swift build -c release`)")
    }
    return url
}

/// Runs a command of this build to its end; throws unless it exits 0.
func runToCompletion(_ executable: String, _ arguments: [String], environment: [String: String]) async throws {
    let process = Process()
    process.executableURL = try productURL(executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let exit = ProcessExit(observing: process)
    try process.run()
    let status = try await exit.status(timeout: .seconds(300), "\(executable) \(arguments.joined(separator: " "))")
    guard status == 0 else { throw SoakError("\(executable) \(arguments.joined(separator: " ")) exited with \(status)") }
}
