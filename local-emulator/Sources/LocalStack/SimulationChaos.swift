import Foundation
import HyperTrackAPI
import NIOHTTP1
import Synchronization

/// What goes wrong while a city runs on a ``SimulationStack`` (`simulate --chaos`): workers SIGKILLed and started
/// again, PostgreSQL crashed and restarted once, a share of HyperTrack API calls failing (503, 429 with
/// `Retry-After`, latency beyond the backend's HyperTrack timeout) and a share of webhook deliveries dropped, delayed
/// or duplicated (the emulator's fault rules, `POST /_emulator/faults`). It keeps a log of what happened for the
/// report; the city's invariants must stay 0 through all of it.
public final class SimulationChaos: Sendable {
    /// Which chaos, each off unless set.
    public struct Configuration: Sendable {
        /// SIGKILL a worker (the workers in turn) this often, starting it again at once; `nil`: never.
        public var workerKillInterval: Duration?
        /// Crash PostgreSQL (`pg_ctl stop -m immediate`) this long after the rides start, and start it again on the
        /// same port and data; `nil`: never.
        public var postgresRestartAfter: Duration?
        /// The share of HyperTrack API calls that fail, split evenly between a 503, a 429 with `Retry-After: 1` and
        /// a reply delayed by ``timeoutLatency`` (beyond the backend's timeout).
        public var hyperTrackFailureShare = 0.0
        /// Real time a "timeout" holds its call; above `HYPERTRACK_TIMEOUT_MS` of ``SimulationStack``'s settings.
        public var timeoutLatency: Duration = .seconds(3)
        /// The share of webhook deliveries that meet a fault, split evenly between dropping a delivery's location
        /// events, delaying it by ``webhookDelaySeconds`` of emulated time, and sending it twice.
        ///
        /// Only location events are dropped: a dropped arrival or completion is recovered by `reconcileTrips`, a
        /// real-time schedule (every minute, for legs 2 minutes past their ETA), which cannot catch up with an
        /// emulated clock running hundreds of times faster than real time.
        public var webhookFaultShare = 0.0
        public var webhookDelaySeconds = 60.0

        /// Nothing goes wrong.
        public init() {}

        /// What `--chaos` turns on: a worker killed every 8 s, PostgreSQL crashed 12 s into the rides, 6% of
        /// HyperTrack calls failing and 9% of webhook deliveries meeting a fault.
        public static var standard: Configuration {
            var chaos = Configuration()
            chaos.workerKillInterval = .seconds(8)
            chaos.postgresRestartAfter = .seconds(12)
            chaos.hyperTrackFailureShare = 0.06
            chaos.webhookFaultShare = 0.09
            return chaos
        }

        /// Whether anything is on.
        public var isOn: Bool {
            self.workerKillInterval != nil || self.postgresRestartAfter != nil || self.hyperTrackFailureShare > 0
                || self.webhookFaultShare > 0
        }

        /// The chaos in words, for the report.
        public var summary: String {
            var parts: [String] = []
            if let every = self.workerKillInterval { parts.append("a worker SIGKILLed every \(every)") }
            if let after = self.postgresRestartAfter { parts.append("PostgreSQL crashed \(after) into the rides") }
            if self.hyperTrackFailureShare > 0 {
                parts.append(
                    String(format: "%.0f%%", self.hyperTrackFailureShare * 100)
                        + " of HyperTrack calls failing (503, 429, \(self.timeoutLatency) latency)"
                )
            }
            if self.webhookFaultShare > 0 {
                parts.append(
                    String(format: "%.0f%%", self.webhookFaultShare * 100)
                        + " of webhook deliveries dropped (locations), delayed "
                        + "\(Int(self.webhookDelaySeconds)) emulated s or duplicated"
                )
            }
            return parts.isEmpty ? "none" : parts.joined(separator: "; ")
        }
    }

    /// What happened.
    public struct Log: Sendable {
        /// Worker kills, each with the real seconds until the new worker listened.
        public var kills: [Double] = []
        /// PostgreSQL restarts, each with the real seconds it was down.
        public var restarts: [Double] = []
        /// The emulator's fault rules and how often each fired (`kind status/latency: fired`).
        public var faultsFired: [(rule: String, fired: Int)] = []
        /// What went wrong with the chaos itself (a worker that did not come back...).
        public var errors: [String] = []
        /// When each event happened, seconds after the rides started, in words.
        public var events: [String] = []
    }

    public let configuration: Configuration
    let stack: SimulationStack
    let emulator: EmulatorControl
    let state = Mutex(Log())

    /// Creates the chaos for a stack.
    public init(configuration: Configuration, stack: SimulationStack) {
        self.configuration = configuration
        self.stack = stack
        self.emulator = EmulatorControl(baseURL: stack.emulatorURL)
    }

    /// What happened so far.
    public var log: Log { self.state.withLock { $0 } }

    /// Installs the fault rules, then kills and restarts until cancelled (the end of the rides). Never throws:
    /// what fails is logged in ``Log/errors``.
    public func run() async {
        let started = ContinuousClock.now
        await self.installFaults()
        await withTaskGroup(of: Void.self) { group in
            if let interval = self.configuration.workerKillInterval {
                group.addTask { await self.killWorkers(every: interval, from: started) }
            }
            if let after = self.configuration.postgresRestartAfter {
                group.addTask { await self.restartPostgres(after: after, from: started) }
            }
        }
        // The rides are over (this task is cancelled): the faults end with them, so that the last trips settle
        // and the invariants are read from a quiet stack. Its own task: a cancelled one's requests would fail.
        await Task { await self.finish() }.value
    }

    func killWorkers(every interval: Duration, from started: ContinuousClock.Instant) async {
        var generation = 0
        while true {
            do {
                // The chaos's own schedule: a kill every interval of real time.
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            generation += 1
            let (index, current) = ((generation - 1) % self.stack.configuration.workers, generation)
            let killed = ContinuousClock.now
            do {
                // Not cancelled halfway when the rides end: a worker killed is always started again.
                try await Task { try await self.stack.crashWorker(index, generation: current) }.value
                let back = CitySimulation.seconds(ContinuousClock.now - killed)
                self.record(
                    String(
                        format: "+%.1f s: worker-%d SIGKILLed, a new one listening %.1f s later",
                        CitySimulation.seconds(killed - started),
                        index,
                        back
                    )
                ) { $0.kills.append(back) }
            } catch {
                self.record("worker-\(index) kill/restart failed: \(error)") { $0.errors.append("\(error)") }
            }
        }
    }

    func restartPostgres(after delay: Duration, from started: ContinuousClock.Instant) async {
        do {
            // The chaos's own schedule: the crash comes this long into the rides.
            try await Task.sleep(for: delay)
        } catch {
            return
        }
        let stopped = ContinuousClock.now
        do {
            try await Task { try await self.stack.restartPostgres() }.value
            let down = CitySimulation.seconds(ContinuousClock.now - stopped)
            self.record(
                String(
                    format: "+%.1f s: PostgreSQL crashed (immediate stop), accepting connections again %.1f s later",
                    CitySimulation.seconds(stopped - started),
                    down
                )
            ) { $0.restarts.append(down) }
        } catch {
            self.record("PostgreSQL restart failed: \(error)") { $0.errors.append("\(error)") }
        }
    }

    /// The emulator's fault rules for the configured shares.
    var faultRules: [JSONValue] {
        var rules: [JSONValue] = []
        let api = self.configuration.hyperTrackFailureShare / 3
        if api > 0 {
            let latency = Double(SimulationClient.milliseconds(self.configuration.timeoutLatency))
            rules += [
                ["kind": "http_error", "status": 503, "rate": .number(api)],
                ["kind": "rate_limit", "retry_after": 1, "rate": .number(api)],
                ["kind": "latency", "latency_ms": .number(latency), "rate": .number(api)],
            ]
        }
        let hooks = self.configuration.webhookFaultShare / 3
        if hooks > 0 {
            rules += [
                ["kind": "drop_webhooks", "event_type": "location", "rate": .number(hooks)],
                [
                    "kind": "delay_webhooks", "delay_seconds": .number(self.configuration.webhookDelaySeconds),
                    "rate": .number(hooks),
                ],
                ["kind": "duplicate_webhooks", "rate": .number(hooks)],
            ]
        }
        return rules
    }

    func installFaults() async {
        for rule in self.faultRules {
            do {
                try await self.emulator.http.expect(201, .POST, "/_emulator/faults", json: rule)
            } catch {
                self.record("fault rule \(rule.text) not installed: \(error)") { $0.errors.append("\(error)") }
            }
        }
    }

    /// Reads how often each fault rule fired and removes them (the city is over); call once the rides ended.
    public func finish() async {
        guard !self.faultRules.isEmpty, self.state.withLock({ $0.faultsFired.isEmpty }) else { return }
        do {
            let rules = try await self.emulator.http.expect(200, .GET, "/_emulator/faults")["data"].items
            let fired = rules.map { rule in
                var name = rule["kind"].stringValue ?? "?"
                switch name {
                case "http_error": name += " \(rule["status"].text)"
                case "latency": name += " \(rule["latency_ms"].text) ms"
                case "delay_webhooks": name += " \(rule["delay_seconds"].text) s"
                case "drop_webhooks": name += " (\(rule["event_type"].stringValue ?? "all"))"
                default: break
                }
                return (rule: name, fired: Int(rule["fired"].doubleValue ?? 0))
            }
            self.state.withLock { $0.faultsFired = fired }
            try await self.emulator.http.expect(204, .DELETE, "/_emulator/faults")
        } catch {
            self.record("fault rules not read: \(error)") { $0.errors.append("\(error)") }
        }
    }

    /// The report's lines about the chaos.
    public var lines: [String] {
        let log = self.log
        var lines = ["Chaos: \(self.configuration.summary)."]
        if self.configuration.workerKillInterval != nil {
            lines.append(
                "- Workers SIGKILLed and started again: \(log.kills.count) (a new worker listening after "
                    + "\(Percentiles(log.kills.map { $0 * 1000 }).text))."
            )
        }
        if self.configuration.postgresRestartAfter != nil {
            lines.append(
                "- PostgreSQL crashed and restarted: \(log.restarts.count)"
                    + log.restarts.map { String(format: " (down %.1f s)", $0) }.joined() + "."
            )
        }
        if !log.faultsFired.isEmpty {
            lines.append(
                "- Emulator faults fired: " + log.faultsFired.map { "\($0.rule) ×\($0.fired)" }.joined(separator: ", ")
                    + "."
            )
        }
        lines += log.events.map { "  - \($0)" }
        let crashes = self.stack.crashes
        if !crashes.isEmpty {
            lines.append(
                "- **Processes that crashed by themselves: \(crashes.count)** (each started again by simulate, as "
                    + "systemd or Kubernetes would):"
            )
            lines += crashes.map { "  - \($0)" }
        }
        if !log.errors.isEmpty { lines.append("- **Chaos that failed to happen: \(log.errors.count)** (see above).") }
        return lines
    }

    func record(_ event: String, _ change: (inout Log) -> Void) {
        self.state.withLock { log in
            change(&log)
            log.events.append(event)
        }
    }
}
