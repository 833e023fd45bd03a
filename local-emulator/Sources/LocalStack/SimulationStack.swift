import BenchSupport
import EmbeddedPostgres
import Foundation
import Logging
import Synchronization

/// A stack of child processes for `ridesharing simulate --own-stack` (and its chaos): an embedded PostgreSQL, the
/// migrations, `hypertrack-emulator` on a manual clock posting webhooks to the API, one `ridesharing serve
/// --api-only` and ``Configuration/workers`` `ridesharing serve --worker-only`. Separate processes, unlike
/// `ridesharing local`, so that a worker can be SIGKILLed and PostgreSQL restarted under a running city.
///
/// The executables are this build's (`ridesharing` and `hypertrack-emulator` next to the running one); each child's
/// output goes to `<directory>/<name>.log`. ``with(configuration:logger:_:)`` tears everything down at the end, also
/// when the body throws.
public final class SimulationStack: Sendable {
    /// What the stack runs and with which settings.
    public struct Configuration: Sendable {
        /// Worker processes (`serve --worker-only`).
        public var workers = 2
        /// Settings given to the API and the workers on top of the ones that connect them (database, emulator, SMS
        /// inbox). ``tunedSettings`` by default.
        public var settings: [String: String] = Self.tunedSettings
        /// The emulator's seed (its ids and fault draws).
        public var emulatorSeed: UInt64 = 1
        /// Emulated seconds between the emulator's simulation steps (a driving phone's location reports). Each step
        /// sends a webhook delivery the clock's advance waits for, so a ride's real time grows with the steps it
        /// takes: 20 quarters them against the emulator's default of 5.
        public var emulatorTickInterval = 20.0
        /// Emulated seconds between a still phone's location webhooks (`nil`: none) and a driving one's (`nil`: every
        /// step); the emulator's defaults, 30 and every step. A city that should report at a phone's real rate on
        /// a clock faster than real time scales both (`simulate --report-every`).
        public var locationReportInterval: Double? = 30
        public var movingReportInterval: Double?
        /// The most events one emulator delivery carries (a step of thousands of phones is split, as in `local`),
        /// and how many attempts the emulator's log keeps (its bodies would otherwise grow for the whole run).
        public var webhookBatchSize = 500
        public var webhookLogLimit = 10_000
        /// How many of a step's deliveries the emulator has in flight at once (1: one after another).
        public var webhookConcurrency = 1
        /// The API's nice value: below 0 the kernel gives it a larger share of the two cores than the worker,
        /// PostgreSQL and the simulated city (what a deployment does with systemd's `CPUWeight=` or a Kubernetes
        /// CPU request, which this machine's single cgroup cannot). Checked after the start: a value the process
        /// did not get (no CAP_SYS_NICE) fails the start instead of running the city at the wrong priority.
        /// What -10 changes in the 4,000-ride city is in BENCHMARKS.md (41st session): not yet told apart from the
        /// machine's hour-to-hour spread.
        public var apiNiceness: Int32 = 0
        /// Scratch folder for PostgreSQL's data and the logs; `nil`: a new one under the temporary folder, removed
        /// at the end.
        public var directory: String?

        /// Settings tuned for a simulation whose minutes pass in seconds, each stated in the report: a killed
        /// worker's claims come back after 4 s instead of 30 (`WORKER_LEASE_SECONDS`), an ignored offer holds an order
        /// 5 s instead of 20 (`DISPATCH_OFFER_TTL_S`), an emulated HyperTrack timeout costs 2 s instead of 30
        /// (`HYPERTRACK_TIMEOUT_MS`), and the safety-net poll runs every 250 ms while PostgreSQL's notifications are
        /// lost across its restart (`WORKER_POLL_INTERVAL_MS`).
        public static let tunedSettings: [String: String] = [
            "WORKER_LEASE_SECONDS": "4",
            "DISPATCH_OFFER_TTL_S": "5",
            "HYPERTRACK_TIMEOUT_MS": "2000",
            "WORKER_POLL_INTERVAL_MS": "250",
            "LOG_LEVEL": "info",
            // No backtrace on a crash (the runtime's message still names the failed check): with one, a crashed
            // process took 20-25 s to exit and be started again, even without full symbolication.
            "SWIFT_BACKTRACE": "enable=no",
        ]

        public init() {}
    }

    /// The API's, the emulator's and the database's URLs, and where the API serves `/metrics` (a port of its own,
    /// as every process here has).
    public let apiURL: String
    public let apiMetricsURL: String
    public let emulatorURL: String
    public let databaseURL: String
    /// Sign-in codes, as the SMS provider would receive them (for ``CitySimulation/Configuration/codes``).
    public let codes: SignInFlow.Codes
    public let configuration: Configuration
    let directory: String
    let postgres: EmbeddedPostgres
    let environment: [String: String]
    let workerPorts: [Int]
    let children: Mutex<[String: ChildProcess]>
    /// What the supervisor knows: the exits it caused, restarts, whether the stack is stopping.
    let supervision = Mutex(Supervision())
    let logger: Logger

    struct Supervision {
        /// Names of the children this stack is ending itself (a kill of the chaos, the final stop).
        var expectedExits: Set<String> = []
        var stopping = false
        var generation = 0
        /// Children that exited on their own and were started again: `name exited with status N`.
        var crashes: [String] = []
    }

    /// The API and worker processes that exited on their own during the run (each was started again, as systemd's
    /// `Restart=always` or a Kubernetes Deployment would): `name exited with status N`.
    public var crashes: [String] { self.supervision.withLock { $0.crashes } }

    private init(
        configuration: Configuration,
        directory: String,
        postgres: EmbeddedPostgres,
        sms: SMSWebhookInbox,
        logger: Logger
    ) throws {
        self.configuration = configuration
        self.directory = directory
        self.postgres = postgres
        self.logger = logger
        self.databaseURL = postgres.url(database: "postgres")
        self.codes = sms.codes
        let (apiPort, emulatorPort, apiMetricsPort) = (try freePort(), try freePort(), try freePort())
        self.workerPorts = try (0..<configuration.workers).map { _ in try freePort() }
        self.apiURL = "http://127.0.0.1:\(apiPort)"
        self.apiMetricsURL = "http://127.0.0.1:\(apiMetricsPort)"
        self.emulatorURL = "http://127.0.0.1:\(emulatorPort)"
        self.environment = configuration.settings.merging(
            [
                "DATABASE_URL": self.databaseURL, "HYPERTRACK_BASE_URL": self.emulatorURL,
                "HYPERTRACK_ACCOUNT_ID": Self.accountID, "HYPERTRACK_SECRET_KEY": Self.secretKey,
                "HYPERTRACK_WEBHOOK_PATH_SECRETS": Self.webhookSecret, "HYPERTRACK_WEBHOOK_SECRET": Self.webhookSecret,
                // Several processes on one machine: each its own free metrics port.
                "METRICS_PORT": "0",
            ]
        ) { $1 }.merging(sms.environment) { $1 }
        self.children = Mutex([:])
    }

    static let accountID = "simulate-account"
    static let secretKey = "simulate-secret"
    static let webhookSecret = "simulate-webhook-secret"

    /// Starts the stack, runs `body` and tears the stack down (children SIGTERMed, SIGKILLed after 20 s,
    /// PostgreSQL stopped, the scratch folder removed unless given), whether `body` returned or threw.
    public static func with<T: Sendable>(
        configuration: Configuration,
        logger: Logger,
        _ body: (SimulationStack) async throws -> T
    ) async throws -> T {
        let scratch = configuration.directory == nil
        let directory =
            configuration.directory ?? NSTemporaryDirectory() + "simulate-\(getpid())-\(UInt32.random(in: 0...9999))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var settings = EmbeddedPostgres.Configuration.throwawaySettings
        settings["max_connections"] = "200"
        // Chaos crashes this server (an immediate stop): with asynchronous commit a crash loses the last commits the
        // API had already answered 201 for (a CI run lost one booking so), which no real deployment accepts.
        // fsync may stay off: it only matters when the machine itself goes down.
        settings["synchronous_commit"] = "on"
        // The report's table of PostgreSQL's busiest statements (a few per cent of the server's CPU).
        settings["shared_preload_libraries"] = "pg_stat_statements"
        let postgres = try await Self.blocking { [settings] in
            try EmbeddedPostgres.started(
                configuration: .init(dataDirectory: directory + "/pg", settings: settings),
                logger: logger
            )
        }
        defer {
            postgres.stop(immediate: true)
            if scratch { try? FileManager.default.removeItem(atPath: directory) }
        }
        return try await SMSWebhookInbox.with(logger: logger) { sms in
            let stack = try SimulationStack(
                configuration: configuration,
                directory: directory,
                postgres: postgres,
                sms: sms,
                logger: logger
            )
            let outcome: Result<T, any Error>
            do {
                try await stack.start()
                outcome = .success(try await body(stack))
            } catch {
                outcome = .failure(error)
            }
            // In a task of its own: when the caller was cancelled (Ctrl-C of `simulate`), waiting for the children's
            // exits would end at once and leave them running.
            await Task { await stack.stopAll() }.value
            return try outcome.get()
        }
    }

    /// Migrations, then the emulator, the API and the workers.
    func start() async throws {
        try await runToCompletion("ridesharing", ["migrate"], environment: self.environment)
        let webhookURL = self.apiURL + "/v1/hypertrack/webhooks/" + Self.webhookSecret
        let emulator = try await ChildProcess.start(
            "emulator",
            executable: "hypertrack-emulator",
            arguments: [
                "--port", String(self.emulatorURL.split(separator: ":").last ?? ""), "--clock-rate", "0",
                "--account-id", Self.accountID, "--secret-key", Self.secretKey, "--webhook-url", webhookURL,
                "--webhook-secret", Self.webhookSecret, "--seed", "\(self.configuration.emulatorSeed)",
                "--tick-interval", "\(self.configuration.emulatorTickInterval)",
                "--location-report-interval", "\(self.configuration.locationReportInterval ?? 0)",
                "--moving-report-interval", "\(self.configuration.movingReportInterval ?? 0)",
                "--webhook-batch", "\(self.configuration.webhookBatchSize)",
                "--webhook-log-limit", "\(self.configuration.webhookLogLimit)",
                "--webhook-concurrency", "\(self.configuration.webhookConcurrency)",
                "--log-level", "warning", "--create-devices",
            ],
            environment: [:],
            readyMarker: "hypertrack-emulator listening on",
            logDirectory: self.directory
        )
        self.children.withLock { $0["emulator"] = emulator }
        try await self.startAPI()
        for index in self.workerPorts.indices { try await self.startWorker(index) }
    }

    /// Starts the API (again, after it crashed: its log gets a new file per start).
    func startAPI(generation: Int = 0) async throws {
        let api = try await ChildProcess.start(
            generation == 0 ? "api" : "api.\(generation)",
            executable: "ridesharing",
            arguments: ["serve", "--api-only"],
            environment: self.environment.merging([
                "HTTP_PORT": String(self.apiURL.split(separator: ":").last ?? ""),
                "METRICS_PORT": String(self.apiMetricsURL.split(separator: ":").last ?? ""),
            ]) { $1 },
            readyMarker: "HTTP listening",
            logDirectory: self.directory,
            niceness: self.configuration.apiNiceness
        )
        self.children.withLock { $0["api"] = api }
        self.supervise(api) { generation in try await self.startAPI(generation: generation) }
    }

    /// Starts worker `index` (again, after a kill: its log gets a new file per start).
    func startWorker(_ index: Int, generation: Int = 0) async throws {
        let name = "worker-\(index)"
        let worker = try await ChildProcess.start(
            generation == 0 ? name : "\(name).\(generation)",
            executable: "ridesharing",
            arguments: ["serve", "--worker-only"],
            environment: self.environment.merging([
                "HTTP_PORT": "\(self.workerPorts[index])", "WORKER_ID": "sim-worker-\(index)-\(generation)",
            ]) { $1 },
            readyMarker: "HTTP listening",
            logDirectory: self.directory
        )
        self.children.withLock { $0[name] = worker }
        self.supervise(worker) { generation in try await self.startWorker(index, generation: generation) }
    }

    /// Starts `child` again with `restart` when it exits without this stack ending it, as a process supervisor
    /// would; the exit is kept in ``crashes``.
    func supervise(_ child: ChildProcess, restart: @escaping @Sendable (Int) async throws -> Void) {
        Task {
            guard let status = try? await child.exited() else { return }
            let generation = self.supervision.withLock { state -> Int? in
                guard state.expectedExits.remove(child.name) == nil, !state.stopping else { return nil }
                state.generation += 1
                state.crashes.append("\(child.name) exited with status \(status) (log: \(child.logPath))")
                return state.generation
            }
            guard let generation else { return }
            self.logger.warning("\(child.name) exited with status \(status): starting it again")
            do {
                try await restart(1000 + generation)
            } catch {
                self.logger.error("\(child.name) could not be started again: \(error)")
                self.supervision.withLock { $0.crashes.append("\(child.name) not started again: \(error)") }
            }
        }
    }

    /// SIGKILLs worker `index` (whatever it was doing: its claims come back when their leases expire) and starts
    /// it again.
    public func crashWorker(_ index: Int, generation: Int) async throws {
        guard let worker = self.children.withLock({ $0["worker-\(index)"] }) else {
            throw LocalStackError.unexpectedReply("no worker \(index)")
        }
        self.supervision.withLock { _ = $0.expectedExits.insert(worker.name) }
        try await worker.crash()
        try await self.startWorker(index, generation: generation)
    }

    /// Stops PostgreSQL as a crash would (`pg_ctl stop -m immediate`: no checkpoint, every session cut; crash
    /// recovery at the next start), then starts it again on the same port and data folder.
    public func restartPostgres() async throws {
        let postgres = self.postgres
        try await Self.blocking {
            postgres.stop(immediate: true)
            try postgres.start()
        }
    }

    /// Every child: SIGTERM with 20 s for a graceful shutdown, then SIGKILL, all at once (the API was seen to
    /// outlive SIGTERM after a run under chaos).
    func stopAll() async {
        self.supervision.withLock { $0.stopping = true }
        let children = self.children.withLock { children in
            defer { children = [:] }
            return Array(children.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for child in children where child.isRunning {
                group.addTask {
                    child.terminate()
                    let pid = child.pid
                    let logger = self.logger
                    let killer = Task {
                        // The grace period's clock: after it, the exit is forced.
                        try await Task.sleep(for: .seconds(20))
                        logger.warning("\(child.name) did not stop within 20 s of SIGTERM: SIGKILL")
                        kill(pid, SIGKILL)
                    }
                    // Bounded: a teardown that waits for ever leaves the whole stack running (SIGKILL came 20 s
                    // in, so 30 s more is an exit that will not be reported).
                    if (try? await child.exited(within: .seconds(50))) == nil {
                        logger.error("\(child.name) (pid \(pid)) was not seen to exit")
                    }
                    killer.cancel()
                }
            }
        }
    }

    /// The logs' folder (kept while the stack runs; for a failure's message).
    public var logDirectory: String { self.directory }

    /// Runs `work` on a thread of its own: `pg_ctl` blocks for seconds, which must not hold one of the few threads
    /// of Swift's cooperative pool.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            Thread.detachNewThread {
                do {
                    continuation.resume(returning: try work())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
