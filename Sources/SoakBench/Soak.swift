import BenchSupport
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
