import Foundation
import LocalStack
import Testing

/// `ridesharing simulate --chaos` in small (issue 19's CI configuration): 50 drivers and 200 rides on a stack of
/// real child processes (embedded PostgreSQL, `hypertrack-emulator`, one `serve --api-only`, two
/// `serve --worker-only`) while workers are SIGKILLed, PostgreSQL crashes and restarts, HyperTrack calls fail and
/// webhooks are dropped, delayed and duplicated. Every invariant must stay 0.
@Suite(
    "Simulation with chaos: a city survives killed workers, a PostgreSQL crash and a faulty HyperTrack",
    .timeLimit(.minutes(8))
)
struct SimulationChaosTests {
    static let logger = LocalStackTests.logger

    @Test("50 drivers, 200 rides, chaos on: every ride ends, no ride lost, one trip per leg, nothing dead or stuck")
    func chaoticCity() async throws {
        var configuration = SimulationStack.Configuration()
        // Every phone reports every 2 real seconds (600 emulated at the clock's 300×), moving or not, as
        // `simulate --report-every 2` would: at the emulator's defaults (a still phone every 30 emulated seconds, a
        // driving one every 20-second step) 50 phones posted ~750 locations a real second, a city's worth of
        // ingestion beside the rest of the suite in CI.
        configuration.locationReportInterval = 600
        configuration.movingReportInterval = 600
        // The API started through `nice` (and started again so after its crash), which the stack checks: +1 needs no
        // privilege and barely changes its share; `simulate --api-nice -10` is the setting that matters.
        configuration.apiNiceness = 1
        try await SimulationStack.with(configuration: configuration, logger: Self.logger) { stack in
            var city = CitySimulation.Configuration(apiURL: "", emulatorURL: "")
            city.drivers = 50
            city.rides = 200
            city.rate = 8
            city.seed = 19
            // Short rides: a ride's real time is its emulated steps, each waiting for its webhook delivery's answer.
            city.radiusMeters = 800
            city.clockStep = 30
            city.clockInterval = .milliseconds(100)
            city.offerPollInterval = .milliseconds(300)
            city.thinkSeconds = 0.05...0.3
            city.riderStreams = true
            city.progressInterval = .seconds(10)
            // Alone on this machine: set-up ~8 s, rides ~50 s; the README's test command runs it alone, after the
            // other suites. Beside the rest of the suite (plain `swift test`): set-up 48 s and 199 rides in 135 s,
            // so the deadlines leave room for that.
            city.setupDeadline = .seconds(90)
            city.deadline = .seconds(240)
            city.settleDeadline = .seconds(20)
            // The run's bound (90 + 240 + 20 + 60 s) is within the suite's time limit: a stuck run fails with what it
            // waited on, and the stack is torn down, instead of hanging the whole CI run (three of six runs in the
            // 11th session, and its official run).
            city.overrun = .seconds(60)
            let (report, chaos) = try await stack.run(city, chaos: .standard, logger: Self.logger) { print($0) }
            for line in report.lines { print(line) }
            #expect(report.lines.contains { $0.contains("1 `serve --api-only` at nice 1,") }, "the stack line says so")
            let (reachedEnd, booked, trips) = (report.reachedEnd, report.booked, report.trips)
            #expect(booked == 200)
            #expect(trips > 0, "rides were driven on the emulator")
            // Every ride ends and every invariant is 0. (Until the 9th session one ride of 200 sometimes never
            // ended: the simulated driver's start or complete, sent while the API restarted, failed but was marked
            // done, so the driver never sent it again; `simulate`'s "rides that did not end" lines showed every such
            // ride at `REACHED_*` since the PostgreSQL restart.)
            #expect(reachedEnd, "every ride ended before the deadline (logs: \(stack.logDirectory))")
            for invariant in report.invariants {
                let count = invariant.count
                #expect(count == 0, "\(invariant.name)")
            }
            // Every rider saw the ride's final status on their stream, through the API's restart (each stream resumes
            // after its last event id).
            let counts = report.measuredCounts
            #expect(counts.ridesFollowedToTheEnd == booked, "riders who saw their ride's end")
            // The API's own timing of the acknowledgements was read from its metrics port, through its restart.
            #expect(counts.apiAcknowledgements > 0, "the API's /metrics counted accepted deliveries")
            #expect(counts.apiAcknowledgementStages == ["decode", "read", "store"])
            // The chaos happened: a run where nothing went wrong would prove nothing.
            #expect(chaos.kills.count >= 2, "workers were killed: \(chaos.events)")
            #expect(chaos.restarts.count == 1, "PostgreSQL was restarted: \(chaos.events)")
            #expect(chaos.errors.isEmpty, "\(chaos.errors)")
            let fired = Dictionary(chaos.faultsFired.map { ($0.rule, $0.fired) }, uniquingKeysWith: +)
            // Each class fired (which of the six rules did depends on the run's timing: drops hit location
            // deliveries only, a few per run).
            let hooks = fired.filter { $0.key.contains("webhooks") }.values.reduce(0, +)
            #expect(hooks > 0, "webhook faults fired: \(fired)")
            #expect(fired.values.reduce(0, +) - hooks > 0, "HyperTrack API faults fired: \(fired)")
            // A PostgreSQL restart crashes `serve` (API and workers): postgres-nio 1.33.2's pool fails the
            // precondition `minimumConcurrentConnections <= stats.active` (PoolStateMachine+ConnectionGroup.swift:163)
            // when a query waits while connections are closing, and `useSteadyPool` sets minimumConnections to the
            // pool size. The stack starts crashed processes again (as systemd or Kubernetes would); the invariants
            // above hold through it. Known until the pool is fixed. A pool without a minimum does not crash, but was
            // seen (9th session) to stop serving for good: after PostgreSQL's "not yet accepting connections"
            // (57P03) answer during its crash recovery, the API's pool made no further connection attempt and
            // every query, the event streams' included, waited for ever (156 of 200 rides never ended); so the
            // crash and restart stay the lesser evil.
            let crashes = stack.crashes
            withKnownIssue(
                "serve crashes when PostgreSQL restarts (postgres-nio pool precondition)",
                isIntermittent: true
            ) {
                #expect(crashes.isEmpty, "\(crashes)")
            }
        }
    }
}
