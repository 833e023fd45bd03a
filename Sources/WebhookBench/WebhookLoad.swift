import AsyncHTTPClient
import BenchSupport
import Foundation
import HyperTrackAPI
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// Posts signed HyperTrack deliveries of ``eventsPerDelivery`` location events to the webhook endpoint, closed loop
/// (a fixed number of senders, each posting again once answered) or open loop (at a fixed rate, whatever the
/// answers: a slow answer does not slow the load, so its latency is counted from when the delivery was due).
struct WebhookLoad: Sendable {
    let http: HTTPClient
    let url: String
    let secret: String
    let drivers: Int
    /// Location events in each delivery, each of its own driver: 10 by default; the city's emulator sends up to
    /// ~500 a delivery (434 on average in the 4,000-ride runs, BENCHMARKS.md 33rd session).
    let eventsPerDelivery: Int
    /// Numbers the deliveries across runs, so each one names other drivers and a new message id.
    private let sequence = DeliveryCounter()

    init(http: HTTPClient, url: String, secret: String, drivers: Int, eventsPerDelivery: Int) {
        self.http = http
        self.url = url
        self.secret = secret
        self.drivers = drivers
        self.eventsPerDelivery = eventsPerDelivery
    }

    /// `concurrency` senders for `duration`.
    func closedLoop(concurrency: Int, for duration: Duration) async throws -> LoadResult {
        let collector = Collector()
        let start = ContinuousClock.now
        let end = start + duration
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while ContinuousClock.now < end {
                        let sent = ContinuousClock.now
                        let outcome = try await self.post()
                        collector.record(outcome, latency: ContinuousClock.now - sent)
                    }
                }
            }
            try await group.waitForAll()
        }
        return collector.result(elapsed: ContinuousClock.now - start)
    }

    /// `rate` deliveries a second for `duration`, each sent when due.
    func openLoop(rate: Int, for duration: Duration) async throws -> LoadResult {
        let collector = Collector()
        let start = ContinuousClock.now
        let count = Int(duration.inSeconds * Double(rate))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                let due = start + .nanoseconds(Int64(index) * 1_000_000_000 / Int64(rate))
                // The load's own schedule: each delivery is sent at its time, not after an outcome.
                try await Task.sleep(until: due, clock: .continuous)
                group.addTask {
                    let outcome = try await self.post()
                    collector.record(outcome, latency: ContinuousClock.now - due)
                }
            }
            try await group.waitForAll()
        }
        return collector.result(elapsed: ContinuousClock.now - start)
    }

    /// One delivery: `nil` when it was acknowledged with 202, else what came back or what failed (a timeout or a
    /// refused connection is a failed delivery of the run, not the end of the benchmark).
    private func post() async throws -> String? {
        do {
            return try await self.attempt()
        } catch {
            return "\(error)"
        }
    }

    private func attempt() async throws -> String? {
        let number = self.sequence.next()
        let body = self.body(number: number)
        var request = HTTPClientRequest(url: self.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(
            name: hyperTrackSignatureHeader,
            value: HMACWebhookSignatureVerifier.signature(for: body, secret: self.secret)
        )
        request.headers.add(name: "x-amz-sns-message-id", value: "webhook-bench-\(getpid())-\(number)")
        request.body = .bytes(ByteBuffer(data: body))
        let response = try await self.http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1024 * 1024)
        guard response.status.code == 202 else {
            return "\(response.status.code) \(String(buffer: bytes).prefix(200))"
        }
        return nil
    }

    /// ``eventsPerDelivery`` location events of as many drivers, as HyperTrack batches a stream (the emulator's and
    /// soak-bench's shape): delivery `n` of `k` events reports drivers `kn ..< kn + k` (modulo the fleet), each at
    /// now and a little east.
    private func body(number: Int) -> Data {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let now = Date()
        let events: [[String: Any]] = (0..<self.eventsPerDelivery).map { index in
            let driver = (number * self.eventsPerDelivery + index) % self.drivers
            let time = formatter.string(from: now.addingTimeInterval(Double(index) / 1_000))
            let step = Double(number % 1_000) * 0.00001
            return [
                "created_at": time, "recorded_at": time, "device_id": BenchDatabase.deviceID(driver),
                "type": "location", "version": "2.0.0",
                "data": [
                    "geometry": [
                        "type": "Point",
                        "coordinates": [
                            13.3 + Double(driver % 100) * 0.002 + step, 52.45 + Double(driver / 100) * 0.001,
                        ],
                    ],
                    "accuracy": 5, "speed": 8.5, "bearing": 90,
                ],
            ]
        }
        // Only JSON types in it: serialising cannot fail.
        return try! JSONSerialization.data(withJSONObject: events)
    }
}

/// Acknowledgement latencies and failures of one run, recorded from many tasks.
final class Collector: Sendable {
    private struct State {
        var latencies: [Double] = []
        var failures: [String] = []
    }
    private let state = Mutex(State())

    func record(_ failure: String?, latency: Duration) {
        self.state.withLock { state in
            if let failure {
                state.failures.append(failure)
            } else {
                state.latencies.append(latency.inSeconds * 1_000)
            }
        }
    }

    func result(elapsed: Duration) -> LoadResult {
        self.state.withLock { LoadResult(latencies: $0.latencies, failures: $0.failures, elapsed: elapsed.inSeconds) }
    }
}

/// What the load saw: acknowledgement latencies (ms) of the 202s, the other answers, and the run's length (s).
struct LoadResult: Sendable {
    var latencies: [Double]
    var failures: [String]
    var elapsed: Double

    var acknowledged: Int { self.latencies.count }
}

/// The delivery counter.
final class DeliveryCounter: Sendable {
    private let value = Atomic<Int>(0)

    func next() -> Int { self.value.add(1, ordering: .relaxed).newValue }
}

extension Duration {
    var inSeconds: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
