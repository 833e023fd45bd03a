import ArgumentParser
import LocalStack

/// `simulate`'s own stack and chaos flags (see ``SimulationStack`` and ``SimulationChaos``).
struct SimulateChaosOptions: ParsableArguments {
    @Flag(help: "Start a stack of child processes instead of using a running one (implied by every chaos flag).")
    var ownStack = false

    @Option(help: "Worker processes of the own stack (default: 2).")
    var workers: Int?

    @Option(
        help:
            "Keep the own stack's PostgreSQL data and process logs in this folder (default: a temporary one, removed)."
    )
    var stackDirectory: String?

    @Option(
        help: """
            Emulated seconds between the own stack's emulator steps (default: 20). A step sends every report and \
            arrival due in it at once: at a 5x clock, 5 sends a whole real second's reports in one burst, 1 spreads \
            them over five steps, as phones reporting at their own moments do (BENCHMARKS.md, 56th session).
            """
    )
    var tickInterval: Double?

    @Option(
        help: ArgumentHelp(
            "Real seconds between each phone's location webhooks in the own stack, moving or still (default: a still "
                + "phone every 30 emulated seconds, a driving one every step)."
        )
    )
    var reportEvery: Double?

    @Option(help: "The most events one of the own stack's emulator deliveries carries (default: 500).")
    var webhookBatch: Int?

    @Option(
        help: "How many of a step's webhook deliveries the own stack's emulator has in flight at once (default: 1)."
    )
    var webhookConcurrency: Int?

    @Option(
        parsing: .unconditional,
        help: """
            The own stack's API at this nice value (-20...19): below 0 it gets a larger share of the cores than the \
            worker, PostgreSQL and the simulated city, as a deployment gives its latency-serving process (systemd \
            CPUWeight=, a Kubernetes CPU request). A negative value needs CAP_SYS_NICE (root) (default: 0).
            """
    )
    var apiNice: Int32?

    @Option(
        name: .customLong("setting"),
        help: "A setting for the own stack's API and workers, KEY=VALUE (repeatable; e.g. WORKER_CONCURRENCY=32)."
    )
    var settings: [String] = []

    @Flag(help: "Turn on the standard chaos (the flags below give each part's defaults).")
    var chaos = false

    @Option(help: "SIGKILL a worker (in turn) every this many seconds and start it again (--chaos: 8).")
    var killWorkerEvery: Double?

    @Option(help: "Crash PostgreSQL this many seconds into the rides and start it again (--chaos: 12).")
    var restartPostgresAfter: Double?

    @Option(help: "Share of HyperTrack API calls failing: 503, 429 with Retry-After, or a timeout (--chaos: 0.06).")
    var hypertrackFailures: Double?

    @Option(help: "Share of webhook deliveries dropped (location events), delayed or duplicated (--chaos: 0.09).")
    var webhookFaults: Double?

    /// The own stack's set-up the flags ask for, ``SimulationStack/Configuration``'s defaults (which the options'
    /// help repeats; `CommandLineTests` checks they agree) where a flag is not given.
    var stack: SimulationStack.Configuration {
        get throws {
            var stack = SimulationStack.Configuration()
            if let workers = self.workers { stack.workers = workers }
            if let interval = self.tickInterval { stack.emulatorTickInterval = interval }
            if let batch = self.webhookBatch { stack.webhookBatchSize = batch }
            if let concurrency = self.webhookConcurrency { stack.webhookConcurrency = concurrency }
            if let nice = self.apiNice { stack.apiNiceness = nice }
            stack.settings.merge(try self.parsedSettings()) { $1 }
            stack.directory = self.stackDirectory
            return stack
        }
    }

    /// The own-stack flags given, which mean nothing against a running stack: refused there rather than ignored,
    /// so a run is never taken for one with a setting it did not have.
    var ownStackFlagsGiven: [String] {
        let given: [(String, Bool)] = [
            ("--workers", self.workers != nil), ("--stack-directory", self.stackDirectory != nil),
            ("--tick-interval", self.tickInterval != nil), ("--report-every", self.reportEvery != nil),
            ("--webhook-batch", self.webhookBatch != nil), ("--webhook-concurrency", self.webhookConcurrency != nil),
            ("--api-nice", self.apiNice != nil), ("--setting", !self.settings.isEmpty),
        ]
        return given.filter(\.1).map(\.0)
    }

    /// `--setting` as a dictionary.
    func parsedSettings() throws -> [String: String] {
        var parsed: [String: String] = [:]
        for setting in self.settings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("--setting must be KEY=VALUE, e.g. WORKER_CONCURRENCY=32 (got \(setting))")
            }
            parsed[parts[0]] = parts[1]
        }
        return parsed
    }

    /// Whether simulate runs its own stack.
    var ownsStack: Bool { self.ownStack || self.configuration.isOn }

    /// The chaos the flags ask for: the standard set under `--chaos`, each flag overriding its part.
    var configuration: SimulationChaos.Configuration {
        var chaos = self.chaos ? SimulationChaos.Configuration.standard : SimulationChaos.Configuration()
        if let every = self.killWorkerEvery {
            chaos.workerKillInterval = every > 0 ? .milliseconds(Int(every * 1000)) : nil
        }
        if let after = self.restartPostgresAfter {
            chaos.postgresRestartAfter = after > 0 ? .milliseconds(Int(after * 1000)) : nil
        }
        if let share = self.hypertrackFailures { chaos.hyperTrackFailureShare = share }
        if let share = self.webhookFaults { chaos.webhookFaultShare = share }
        return chaos
    }

    func validate() throws {
        let given = self.ownStackFlagsGiven
        if !self.ownsStack, !given.isEmpty {
            throw ValidationError(
                "\(given.joined(separator: ", ")) set\(given.count == 1 ? "s" : "") up the own stack: add --own-stack "
                    + "(or a chaos flag), or leave \(given.count == 1 ? "it" : "them") out against a running stack"
            )
        }
        if let workers = self.workers, !(1...16).contains(workers) {
            throw ValidationError("--workers must be in 1...16")
        }
        if let batch = self.webhookBatch, !(1...100_000).contains(batch) {
            throw ValidationError("--webhook-batch must be in 1...100000")
        }
        if let nice = self.apiNice, !(-20...19).contains(nice) {
            throw ValidationError("--api-nice must be within -20...19, not \(nice)")
        }
        if let concurrency = self.webhookConcurrency, !(1...256).contains(concurrency) {
            throw ValidationError("--webhook-concurrency must be in 1...256")
        }
        _ = try self.parsedSettings()
        if let interval = self.tickInterval, !(interval >= 1 && interval <= 600) {
            throw ValidationError("--tick-interval must be in 1...600 seconds")
        }
        if let every = self.reportEvery, !(every > 0 && every <= 3600) {
            throw ValidationError("--report-every must be in (0, 3600] seconds")
        }
        for (name, value) in [
            ("--kill-worker-every", self.killWorkerEvery), ("--restart-postgres-after", self.restartPostgresAfter),
        ] {
            if let value, value < 0 || value > 86_400 {
                throw ValidationError("\(name) must be in 0...86400 seconds (0: off)")
            }
        }
        for (name, value) in [
            ("--hypertrack-failures", self.hypertrackFailures), ("--webhook-faults", self.webhookFaults),
        ] {
            if let value, !(0...0.9).contains(value) { throw ValidationError("\(name) must be a share in 0...0.9") }
        }
        if self.killWorkerEvery.map({ $0 > 0 }) == true || (self.chaos && self.killWorkerEvery == nil),
            (self.workers ?? 2) < 2
        {
            throw ValidationError(
                "killing workers needs --workers 2 or more (one keeps running while the other restarts)"
            )
        }
    }
}
