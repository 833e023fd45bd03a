import AsyncHTTPClient
import BenchSupport
import Foundation
import LocalStack
import NIOCore
import NIOPosix
import Synchronization

/// What a run measured.
struct StreamResult: Sendable {
    var residentBeforeKiB: Int
    var residentOpenKiB: Int
    var residentIdleKiB: Int
    var openSeconds: Double
    var changes: Int
    var changeSeconds: Double
    /// Change request sent → event read, one per stream that shows the change, in milliseconds.
    var latencies: [Double]
    /// The change requests' own round trips, in milliseconds.
    var requestLatencies: [Double]
    var expected: Int
    var missing: Int
    var duplicated: Int
    var heartbeats: Int
    var closed: [String: Int]
    var failures: [String]
    var apiCPUSeconds: Double
}

/// The run: riders signed in, streams opened and left idle, then changes at the plan's rate.
struct StreamLoad: Sendable {
    let plan: StreamPlan
    let api: ChildProcess
    let apiPort: Int
    let accounts: SignInFlow

    func run() async throws -> StreamResult {
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 32)
            )
        )
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let result = try await self.run(http: http, loops: loops)
            try await http.shutdown()
            try await loops.shutdownGracefully()
            return result
        } catch {
            try await http.shutdown()
            try await loops.shutdownGracefully()
            throw error
        }
    }

    private func run(http: HTTPClient, loops: MultiThreadedEventLoopGroup) async throws -> StreamResult {
        let client = RiderClient(baseURL: "http://127.0.0.1:\(self.apiPort)", http: http, accounts: self.accounts)
        say("sse-bench: signing in \(self.plan.riders) riders")
        var riders = try await Self.concurrently(self.plan.riders, width: 16) { try await client.signUp($0) }
        riders.sort { $0.index < $1.index }
        let before = try self.api.residentKiB()

        say("sse-bench: opening \(self.plan.streams) streams")
        let receipts = Receipts()
        let opening = ContinuousClock.now
        let streams = riders.flatMap { rider in
            (0..<self.plan.streamsPerRider).map {
                (index: rider.index * self.plan.streamsPerRider + $0, token: rider.token)
            }
        }
        let channels = try await StreamClients(group: loops, port: self.apiPort, receipts: receipts)
            .open(streams, path: "/v1/events")
        let openSeconds = (ContinuousClock.now - opening).seconds
        let open = try self.api.residentKiB()
        // The benchmark's own clock: the streams sit idle (heartbeats flow) before memory is read again.
        try await Task.sleep(for: .seconds(self.plan.idle))
        let idle = try self.api.residentKiB()

        say("sse-bench: \(self.plan.rate) changes/s for \(self.plan.seconds) s")
        let cpuBefore = try self.api.cpuSeconds()
        let changes = Changes(riders: riders)
        let total = self.plan.rate * self.plan.seconds
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for change in 0..<total {
                // The load's pacing clock: change n is sent at n / rate seconds, whatever the replies take.
                try await Task.sleep(until: started + .seconds(Double(change) / Double(self.plan.rate)))
                let rider = change % riders.count
                group.addTask { try await changes.next(rider: rider, client: client) }
            }
            try await group.waitForAll()
        }
        let changeSeconds = (ContinuousClock.now - started).seconds
        let apiCPU = try self.api.cpuSeconds() - cpuBefore

        // Every change's events, on every stream of its rider; waited for with a deadline.
        let sent = changes.sent
        let expected = sent.count * self.plan.streamsPerRider
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.delivered(receipts.arrivals, of: sent) < expected, ContinuousClock.now < deadline {
            // Polls another process's output (the streams), which signals nothing to wait on.
            try await Task.sleep(for: .milliseconds(100))
        }
        let arrivals = receipts.arrivals
        var latencies: [Double] = []
        var missing = 0
        var duplicated = 0
        for change in sent {
            let seen = arrivals[change.key] ?? []
            let perStream = Dictionary(grouping: seen, by: \.stream)
            missing += self.plan.streamsPerRider - perStream.count
            duplicated += seen.count - perStream.count
            latencies += seen.map { ($0.at - change.sentAt).milliseconds }
        }
        // Read before the benchmark closes its ends: a response cut by its own client is not the server's failure.
        let (heartbeats, closed, failures) = (receipts.heartbeats, receipts.closedReasons, receipts.failures)
        for channel in channels { channel.close(promise: nil) }
        return StreamResult(
            residentBeforeKiB: before,
            residentOpenKiB: open,
            residentIdleKiB: idle,
            openSeconds: openSeconds,
            changes: sent.count,
            changeSeconds: changeSeconds,
            latencies: latencies.sorted(),
            requestLatencies: sent.map(\.requestMilliseconds).sorted(),
            expected: expected,
            missing: missing,
            duplicated: duplicated,
            heartbeats: heartbeats,
            closed: closed,
            failures: failures,
            apiCPUSeconds: apiCPU
        )
    }

    private static func delivered(_ arrivals: [String: [Receipts.Arrival]], of sent: [Changes.Sent]) -> Int {
        sent.reduce(0) { $0 + (arrivals[$1.key]?.count ?? 0) }
    }

    /// Runs `work` for 0..<count, `width` at a time.
    static func concurrently<T: Sendable>(
        _ count: Int,
        width: Int,
        _ work: @escaping @Sendable (Int) async throws -> T
    ) async throws -> [T] {
        try await withThrowingTaskGroup(of: T.self) { group in
            var results: [T] = []
            var next = 0
            while next < min(width, count) {
                let index = next
                group.addTask { try await work(index) }
                next += 1
            }
            while let result = try await group.next() {
                results.append(result)
                if next < count {
                    let index = next
                    group.addTask { try await work(index) }
                    next += 1
                }
            }
            return results
        }
    }
}

/// The changes: each rider's open order is cancelled, then a new one booked, alternately; each change is keyed by
/// the order and the status its event shows.
final class Changes: Sendable {
    struct Sent: Sendable {
        var key: String
        var sentAt: ContinuousClock.Instant
        var requestMilliseconds: Double
    }

    private struct State {
        var riders: [Rider]
        var sent: [Sent] = []
    }

    private let state: Mutex<State>

    init(riders: [Rider]) { self.state = Mutex(State(riders: riders)) }

    var sent: [Sent] { self.state.withLock { $0.sent } }

    func next(rider index: Int, client: RiderClient) async throws {
        let rider = self.state.withLock { $0.riders[index] }
        let sentAt = ContinuousClock.now
        let key: String
        if let order = rider.openOrder {
            try await client.cancel(order, of: rider)
            key = "\(order)|CANCELLED"
            self.state.withLock { $0.riders[index].openOrder = nil }
        } else {
            let order = try await client.book(rider)
            key = "\(order)|NEW"
            self.state.withLock { $0.riders[index].openOrder = order }
        }
        let took = (ContinuousClock.now - sentAt).milliseconds
        self.state.withLock { $0.sent.append(Sent(key: key, sentAt: sentAt, requestMilliseconds: took)) }
    }
}

extension Duration {
    var seconds: Double { Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18 }
    var milliseconds: Double { self.seconds * 1_000 }
}
