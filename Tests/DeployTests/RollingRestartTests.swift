import Foundation
import LocalStack
import HyperTrackEmulator
import NIOHTTP1
import Testing

/// Two `serve --worker-only` processes and one `serve --api-only` process (the real binary) beside one PostgreSQL
/// and the HyperTrack emulator, under a steady stream of registrations and bookings; each worker is restarted with
/// SIGTERM in turn while the load continues.
@Suite("Deploy: rolling restart of workers under load", .timeLimit(.minutes(10)))
struct RollingRestartTests {
    static let rides = 60

    @Test("nothing lost, nothing handled twice, no order stuck, while each worker is restarted in turn")
    func rollingRestart() async throws {
        try await Stack.with { stack in
            try await stack.run(["migrate"])
            let operatorKey = try await stack.operatorKey()
            let authorization = [("authorization", "Bearer \(operatorKey)")]
            // Each device update takes 300 ms, so SIGTERM lands while handlers are running: the drain must let
            // them finish (or release them) rather than drop or re-run them.
            try await stack.hyperTrack.addFault(.latency(milliseconds: 300, path: "/devices/*"))
            let (api, apiPort) = try await stack.serve(["--api-only"], name: "api")
            defer { api.kill() }
            let (first, firstPort) = try await stack.serve(["--worker-only"], name: "worker-1", environment: ["WORKER_ID": "worker-1"])
            let (second, secondPort) = try await stack.serve(["--worker-only"], name: "worker-2", environment: ["WORKER_ID": "worker-2"])
            let workers = Workers([first, second])
            defer { workers.killAll() }
            let base = "http://127.0.0.1:\(apiPort)"
            let ports = Ports([firstPort, secondPort])

            let (progress, progressContinuation) = AsyncStream<Int>.makeStream()
            let load = Task {
                var drivers: [(id: String, device: String, name: String)] = []
                var orders: [String] = []
                var riders: [String] = []
                for ride in 0..<Self.rides {
                    let driver = try await Self.registerDriver(base, ride, sms: stack.sms)
                    drivers.append(driver)
                    let (rider, order) = try await Self.bookOrder(base, ride, sms: stack.sms)
                    riders.append(rider)
                    orders.append(order)
                    progressContinuation.yield(ride + 1)
                }
                progressContinuation.finish()
                return (drivers, riders, orders)
            }
            // Restart worker 1 after a third of the load, worker 2 after two thirds; the load keeps going meanwhile.
            let restarted = try await workers.restartInTurn(stack, after: progress, of: Self.rides) { ports.set($0, $1) }
            #expect(restarted == 2)
            let (drivers, riders, orders) = try await load.value

            // The outbox drains: a condition polled with a generous deadline (there is no event to await across
            // processes; the assertions below are on outcomes, not on time).
            try await RideAudit.drained(stack)

            // Each order's first round ran in its booking (no `dispatchOrder` delivery); each event handled
            // exactly once per function: two done rows per user for registerDriverDevice (the sign-in's insert and
            // the profile's update; it ignores riders and profiles without a device), none run twice (attempt 1: no
            // lease expired, no retry), none dead.
            try await RideAudit.dispatchedInTheirBookings(stack, orders: orders)
            let registered = try await stack.rows(
                "SELECT document_key FROM trigger_runtime.done WHERE function_name = 'registerDriverDevice'",
                as: String.self
            )
            let users = drivers.map(\.id) + riders
            #expect(registered.count == 2 * users.count)
            #expect(Set(registered.map { $0.lowercased() }) == Set(users.map { $0.lowercased() }))
            let repeated = try await stack.rows(
                "SELECT count(*)::int FROM trigger_runtime.done WHERE attempt <> 1", as: Int.self
            )
            #expect(repeated == [0])
            // Both generations of workers did part of the work.
            let owners = Set(try await stack.rows("SELECT DISTINCT lease_owner FROM trigger_runtime.done", as: String.self))
            #expect(owners.contains { $0.hasSuffix("b") } && owners.contains { !$0.hasSuffix("b") }, "owners: \(owners)")
            // No order stuck: every booked order was dispatched (the set equality above) and none is left behind in
            // the outbox (drained above).
            // Every role answers its probes and /metrics; the workers' metrics count what they handled.
            for port in ports.all + [apiPort] {
                #expect(try await HTTP.send(.GET, "http://127.0.0.1:\(port)/healthz").status == 200)
                #expect(try await HTTP.send(.GET, "http://127.0.0.1:\(port)/readyz").status == 200)
            }
            var handled = 0
            for port in ports.all {
                // METRICS_PORT=main: on the API's port, behind an operator key.
                #expect(try await HTTP.send(.GET, "http://127.0.0.1:\(port)/metrics").status == 401)
                let metrics = try await HTTP.send(.GET, "http://127.0.0.1:\(port)/metrics", headers: authorization)
                #expect(metrics.status == 200)
                handled += Self.sum(metrics.body, "trigger_invocations", containing: #"outcome="handled""#)
            }
            #expect(handled > 0, "the restarted workers report handled invocations")
            let apiMetrics = try await HTTP.send(.GET, "http://127.0.0.1:\(apiPort)/metrics", headers: authorization).body
            #expect(Self.sum(apiMetrics, "hb_requests", containing: "/v1/orders") >= orders.count)
            #expect(try await HTTP.send(.GET, "http://127.0.0.1:\(ports.all[0])/v1/orders").status == 404, "workers serve no API")
            // LOG_FORMAT=json: every line the API wrote is one JSON object with the documented keys.
            for line in api.output {
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
                let keys = Set(object.keys)
                #expect(keys.isSuperset(of: ["timestamp", "level", "label", "message", "metadata"]), "\(line)")
            }
            // The side effect reached HyperTrack once per driver: each device carries its driver's name.
            for driver in drivers {
                let device = try await HTTP.send(
                    .GET, "\(stack.emulatorBaseURL)/devices/\(driver.device)",
                    headers: [("authorization", Self.basic(stack))]
                )
                #expect(device.status == 200)
                let info = device.object()["device_info"] as? [String: Any]
                #expect(info?["name"] as? String == driver.name, "device \(driver.device): \(device.body)")
            }
        }
    }

    /// The sum of the samples of `metric` whose line contains `filter` in a Prometheus text exposition.
    static func sum(_ exposition: String, _ metric: String, containing filter: String) -> Int {
        exposition.split(separator: "\n").filter { $0.hasPrefix(metric + "{") && $0.contains(filter) }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            .reduce(0) { $0 + Int($1) }
    }

    static func basic(_ stack: Stack) -> String {
        "Basic " + Data("\(stack.emulator.accountID):\(stack.emulator.secretKey)".utf8).base64EncodedString()
    }

    /// Signs a driver in (the code through `serve`'s SMS webhook, or the local stack's outbox without `sms`) with a
    /// complete profile, offline.
    static func registerDriver(_ base: String, _ ride: Int, sms: SMSWebhookInbox? = nil) async throws
        -> (id: String, device: String, name: String)
    {
        let device = "DEV-\(ride)"
        let name = "Driver \(ride)"
        let api = StackAPI(baseURL: base)
        let session = try await (sms?.accounts(api) ?? api.accounts).driver(
            name, device: device, car: ("Prius", "B-RS \(ride)"), online: false, phone: "+49 30 \(100_000 + ride)"
        )
        return (session.userID, device, name)
    }

    /// Signs a rider in and books an order; returns (rider id, order id).
    static func bookOrder(_ base: String, _ ride: Int, sms: SMSWebhookInbox) async throws -> (String, String) {
        let rider = try await sms.accounts(StackAPI(baseURL: base)).rider("Rider \(ride)")
        let (token, riderID) = (rider.accessToken, rider.userID)
        let booked = try await HTTP.send(
            .POST, "\(base)/v1/orders",
            json: [
                "pickup": ["lat": 52.52, "lng": 13.405, "address": "Alexanderplatz"],
                "dropoff": ["lat": 52.5163, "lng": 13.3777, "address": "Brandenburger Tor"],
            ],
            headers: [("authorization", "Bearer \(token)")]
        )
        guard booked.status == 201, let id = booked.object()["id"] as? String else {
            throw ChildProcess.Failure(description: "booking: \(booked.status) \(booked.body)")
        }
        return (riderID, id)
    }
}

/// The current workers' HTTP ports.
final class Ports: @unchecked Sendable {
    private let lock = NSLock()
    private var ports: [Int]

    init(_ ports: [Int]) { self.ports = ports }

    func set(_ index: Int, _ port: Int) { self.lock.withLock { self.ports[index] = port } }
    var all: [Int] { self.lock.withLock { self.ports } }
}

/// The current worker processes (replaced as they are restarted).
final class Workers: @unchecked Sendable {
    private let lock = NSLock()
    private var processes: [ChildProcess]

    init(_ processes: [ChildProcess]) { self.processes = processes }

    subscript(index: Int) -> ChildProcess {
        get { self.lock.withLock { self.processes[index] } }
        set { self.lock.withLock { self.processes[index] = newValue } }
    }

    func killAll() { self.lock.withLock { self.processes.forEach { $0.kill() } } }

    /// Restarts worker 1 once `progress` reaches a third of `total`, worker 2 at two thirds: SIGTERM, exit 0 expected,
    /// then `serve --worker-only` again (named `worker-Nb`). Returns how many were restarted.
    /// - Parameter restarted: Called with the worker's index and its new HTTP port.
    func restartInTurn(
        _ stack: Stack, after progress: AsyncStream<Int>, of total: Int,
        restarted: (Int, Int) -> Void = { _, _ in }
    ) async throws -> Int {
        var count = 0
        for await done in progress where count < 2 && done >= (count + 1) * total / 3 {
            let index = count
            let old = self[index]
            old.signal(SIGTERM)
            let status = try await old.exitStatus()
            #expect(status == 0, "worker-\(index + 1) exits cleanly on SIGTERM: \(old.output.suffix(10))")
            let (fresh, port) = try await stack.serve(
                ["--worker-only"], name: "worker-\(index + 1)b", environment: ["WORKER_ID": "worker-\(index + 1)b"]
            )
            self[index] = fresh
            restarted(index, port)
            count += 1
        }
        return count
    }
}
