import ArgumentParser
import EmbeddedPostgres
import Foundation
import LocalStack
import Logging
import PostgresNIO
import ServiceLifecycle
import UnixSignals

/// `ridesharing simulate`: a city in a box against a running stack (see ``CitySimulation``).
struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a city against a running stack: drivers around a centre answering offers, riders booking at "
            + "a rate, every ride driven on the emulator; report throughput, latencies and invariants.",
        discussion: """
            The stack is the running `ridesharing local` (found through <local-data>/stack.json) unless \
            --api-url, --emulator-url and --database-url are all given. The simulation moves the emulator's clock \
            itself (--clock-step emulated seconds per step; each step returns once its webhooks were delivered, so \
            the emulator never runs ahead of the API), which suits `ridesharing local --clock-rate 0`. Exits \
            non-zero when an invariant is not 0 or a ride did not end before --deadline.

            With --own-stack (implied by every chaos flag) it starts a stack of its own instead, as child processes \
            of this build: an embedded PostgreSQL, `hypertrack-emulator` on a manual clock, one `serve --api-only` \
            and --workers `serve --worker-only` (settings tuned for minutes that pass in seconds; the report lists \
            them), and tears it down at the end. Chaos on that stack: --chaos turns on a worker SIGKILLed every 8 s \
            (and started again), PostgreSQL crashed and restarted 12 s into the rides, 6% of HyperTrack calls \
            failing (503, 429 with Retry-After, latency beyond the client's timeout) and 9% of webhook deliveries \
            dropped (location events), delayed or duplicated; the single flags set or override each part. The \
            report says what happened, and the invariants must stay 0:
              ridesharing simulate --chaos --drivers 50 --rides 200 --rate 8 --radius-m 800 --clock-step 30 \\
                --poll-interval 0.3
            """
    )

    @OptionGroup var local: LocalStackOption

    @Option(help: "The API's base URL (instead of stack.json's).")
    var apiURL: String?

    @Option(help: "The HyperTrack emulator's base URL (instead of stack.json's).")
    var emulatorURL: String?

    @Option(help: "The database's URL, postgres://user:password@host:port/database (instead of stack.json's).")
    var databaseURL: String?

    @Option(
        help: """
            The base URL of the API's metrics port (it serves /metrics there), for the acknowledgements as the API \
            timed them; the own stack's is known, and a running `ridesharing local`'s is in its stack.json.
            """
    )
    var apiMetricsURL: String?

    @Option(help: "Drivers placed around the centre.")
    var drivers = 1000

    @Option(help: "Rides to book in all.")
    var rides = 200

    @Option(help: "Bookings per second.")
    var rate = 5.0

    @Option(help: "Decides positions, think times and who declines or ignores an offer.")
    var seed: UInt64 = 1

    @Option(help: "The centre, lat,lng.")
    var center = "52.52,13.405"

    @Option(name: .customLong("radius-m"), help: "Radius around the centre, in metres.")
    var radiusM = 3000.0

    @Option(help: "Emulated seconds the emulator's clock is advanced by per step (0: leave it to its own rate).")
    var clockStep = 10.0

    @Option(
        help:
            "Real seconds between two clock steps (the emulated clock runs clock-step / clock-interval times real time)."
    )
    var clockInterval = 0.2

    @Option(help: "Seconds between an idle driver's looks at GET /v1/offers (with --offers poll).")
    var pollInterval = 2.0

    @Option(help: "How drivers learn of offers: push (hold GET /v1/events, as the app does) or poll.")
    var offers: CitySimulation.OfferChannel = .push

    @Flag(help: "Each rider follows the ride live on GET /v1/orders/{id}/events, from booking to its final status.")
    var riderStreams = false

    @Option(
        name: .customLong("process"),
        help: "A process to sample memory and CPU of, name=pid (repeatable; default: stack.json's stack process)."
    )
    var processes: [String] = []

    @Option(help: "Sign-ins (and placements) run at once while the city is set up.")
    var setupConcurrency = 16

    @Option(help: "Seconds the rides may take before the simulation gives up.")
    var deadline = 600.0

    @Option(help: "Write the report into this markdown file's simulate section (e.g. BENCHMARKS.md).")
    var write: String?

    @OptionGroup(title: "Own stack and chaos") var chaos: SimulateChaosOptions

    func validate() throws {
        guard (1...100_000).contains(self.drivers) else { throw ValidationError("--drivers must be in 1...100000") }
        guard (1...100_000).contains(self.rides) else { throw ValidationError("--rides must be in 1...100000") }
        guard self.rate > 0, self.rate <= 1000 else { throw ValidationError("--rate must be in (0, 1000]") }
        guard self.centre != nil else { throw ValidationError("--center must be lat,lng, e.g. 52.52,13.405") }
        guard self.radiusM >= 10, self.radiusM <= 100_000 else {
            throw ValidationError("--radius-m must be in 10...100000")
        }
        guard self.clockStep >= 0, self.clockStep <= 3600 else {
            throw ValidationError("--clock-step must be in 0...3600")
        }
        guard self.clockInterval >= 0.01, self.clockInterval <= 60 else {
            throw ValidationError("--clock-interval must be in 0.01...60")
        }
        guard self.pollInterval >= 0.05, self.pollInterval <= 60 else {
            throw ValidationError("--poll-interval must be in 0.05...60")
        }
        if self.chaos.reportEvery != nil, self.clockStep == 0 {
            throw ValidationError("--report-every needs a --clock-step: it scales real seconds by the clock's rate")
        }
        guard self.deadline > 0 else { throw ValidationError("--deadline must be positive") }
        guard (1...1000).contains(self.setupConcurrency) else {
            throw ValidationError("--setup-concurrency must be in 1...1000")
        }
        _ = try self.measuredProcesses(default: nil)
    }

    /// `--center` parsed, when it is two numbers within the globe.
    var centre: (latitude: Double, longitude: Double)? {
        let parts = self.center.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1], abs(latitude) <= 85,
            abs(longitude) <= 180
        else { return nil }
        return (latitude, longitude)
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let logger = Logger(label: "ridesharing.simulate")
        if self.offers == .push || self.riderStreams {
            try OpenFileLimit.raise(toAtLeast: self.drivers + (self.riderStreams ? self.rides : 0) + 1024)
        }
        if self.chaos.ownsStack {
            var city = try self.city(apiURL: "", emulatorURL: "")
            city.processes = try self.measuredProcesses(default: nil)
            var stack = try self.chaos.stack
            if let every = self.chaos.reportEvery {
                // Real seconds to emulated ones at the clock's rate (clock-step per clock-interval).
                let emulated = every * self.clockStep / self.clockInterval
                stack.locationReportInterval = emulated
                stack.movingReportInterval = emulated
            }
            let chaos = self.chaos.configuration
            let (configuration, ownCity) = (stack, city)
            let report = try await Self.untilSignalled {
                try await SimulationStack.with(configuration: configuration, logger: logger) { stack in
                    Terminal.line(
                        "own stack: API \(stack.apiURL), emulator \(stack.emulatorURL), logs in \(stack.logDirectory)"
                    )
                    return try await stack.run(ownCity, chaos: chaos, logger: logger) { Terminal.line($0) }.report
                }
            }
            try self.finish(report)
            return
        }
        let (apiURL, emulatorURL, databaseURL, stackPID, metricsURL) = try self.endpoints()
        var city = try self.city(apiURL: apiURL, emulatorURL: emulatorURL)
        if city.apiMetricsURL == nil { city.apiMetricsURL = metricsURL }
        city.processes = try self.measuredProcesses(default: stackPID)
        let report = try await SimulationDatabase.with(
            configuration: try DatabaseURL.connectionConfiguration(databaseURL),
            logger: logger
        ) { database in
            try await CitySimulation(configuration: city, database: database, logger: logger) {
                Terminal.line($0)
            }.run()
        }
        try self.finish(report)
    }

    /// Runs `body` until it returns or SIGINT or SIGTERM arrives, which cancels it: the own stack is then torn down
    /// (its API, workers and emulator stopped, PostgreSQL stopped, a scratch folder removed) instead of outliving the
    /// command, as its child processes did when Ctrl-C ended `simulate` at once.
    static func untilSignalled<Result: Sendable>(
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                for await signal in signals {
                    Terminal.line("\(signal): stopping the own stack")
                    break
                }
                return nil
            }
            defer { group.cancelAll() }
            while let first = try await group.next() {
                if let result = first { return result }
                // The signal: cancel the run and wait for its teardown, which ends in its CancellationError.
                group.cancelAll()
            }
            throw CancellationError()
        }
    }

    /// The city the flags describe, on the given stack.
    func city(apiURL: String, emulatorURL: String) throws -> CitySimulation.Configuration {
        var city = CitySimulation.Configuration(apiURL: apiURL, emulatorURL: emulatorURL)
        if let metrics = self.apiMetricsURL { city.apiMetricsURL = metrics }
        city.drivers = self.drivers
        city.rides = self.rides
        city.rate = self.rate
        city.seed = self.seed
        if let centre = self.centre { (city.centerLatitude, city.centerLongitude) = centre }
        city.radiusMeters = self.radiusM
        city.clockStep = self.clockStep
        city.clockInterval = .milliseconds(Int(self.clockInterval * 1000))
        city.offerPollInterval = .milliseconds(Int(self.pollInterval * 1000))
        city.deadline = .milliseconds(Int(self.deadline * 1000))
        city.offers = self.offers
        city.riderStreams = self.riderStreams
        city.setupConcurrency = self.setupConcurrency
        return city
    }

    /// Prints the report, writes it when asked, and fails unless it passed.
    func finish(_ report: CitySimulation.Report) throws {
        Terminal.line("")
        for line in report.lines { Terminal.line(line) }
        if let path = self.write {
            let command = (["ridesharing"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            try report.write(into: path, command: command)
            Terminal.line("written to \(path)")
        }
        guard report.passed else { throw ExitCode(1) }
    }

    /// The API, emulator and database URLs: the flags when all three are given, else the running local stack's.
    /// The stack's endpoints: the flags', else stack.json's; its metrics URL only when its API is the one used.
    func endpoints() throws -> (api: String, emulator: String, database: String, pid: Int32?, metrics: String?) {
        if let api = self.apiURL, let emulator = self.emulatorURL, let database = self.databaseURL {
            return (api, emulator, database, nil, nil)
        }
        let path = LocalData.endpointsFile(self.local.localData)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError(
                "no running local stack at \(path): start `swift run ridesharing local --clock-rate 0`, or give "
                    + "--api-url, --emulator-url and --database-url"
            )
        }
        let endpoints: LocalStack.Endpoints
        do {
            endpoints = try JSONDecoder().decode(LocalStack.Endpoints.self, from: data)
        } catch {
            throw ValidationError("\(path) is not a local stack's endpoints file: \(error)")
        }
        guard let database = self.databaseURL ?? endpoints.databaseURL else {
            throw ValidationError("\(path) names no database: give --database-url")
        }
        return (
            self.apiURL ?? endpoints.apiURL, self.emulatorURL ?? endpoints.emulatorURL, database, endpoints.pid,
            self.apiURL == nil ? endpoints.metricsURL : nil
        )
    }
}
