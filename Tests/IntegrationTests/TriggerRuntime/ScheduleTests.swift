import Foundation
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

@Suite("TriggerRuntime schedules", .timeLimit(.minutes(10)))
struct ScheduleTests {
    static func registry(_ ticks: Observations<FunctionContext>, schedule: Schedule) throws -> FunctionRegistry {
        var registry = FunctionRegistry()
        try registry.registerSchedule("sweep", schedule: schedule) { tick, context in
            #expect(context.tick == tick)
            ticks.append(context)
        }
        return registry
    }

    @Test("two workers: an every-second schedule ticks once per second, never twice")
    func onceAcrossWorkers() async throws {
        let ticks = Observations<FunctionContext>()
        let registry = try Self.registry(ticks, schedule: .every(.seconds(1)))
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            // Poll often, so both workers look at the schedule many times per tick.
            let configurations = ["a", "b"].map { name in
                RuntimeHarness.configuration {
                    $0.pollInterval = .milliseconds(100)
                    $0.workerID = "schedule-worker-\(name)"
                }
            }
            try await RuntimeHarness.withWorkers(
                client: client, registry: registry, configurations: configurations, logger: logger
            ) {
                try await ticks.wait("four ticks") { $0.count >= 4 }
            }
            let runs = ticks.entries.compactMap(\.tick)
            let instants = runs.map(\.scheduledAt.timeIntervalSince1970)
            #expect(Set(instants).count == instants.count)
            // Each run starts where the previous one's ticks ended: no tick twice, none lost (a check delayed past
            // a whole second by a busy machine coalesces, and says so).
            #expect(zip(runs, runs.dropFirst()).allSatisfy {
                $1.scheduledAt.timeIntervalSince($0.scheduledAt) == Double($0.coalesced)
            })
            #expect(instants.allSatisfy { $0 == $0.rounded() })
            #expect(ticks.entries.allSatisfy { $0.operation == .tick && $0.documentKey == "sweep" })
            // Every tick row either worker inserted (run, or still waiting when they stopped) is for its own instant.
            let duplicates = try await RuntimeHarness.count(
                client,
                """
                SELECT count(*) - count(DISTINCT committed_at) FROM (
                    SELECT committed_at FROM trigger_runtime.done WHERE operation = 'tick'
                    UNION ALL SELECT committed_at FROM trigger_runtime.deliveries WHERE operation = 'tick') t
                """)
            #expect(duplicates == 0)
        }
    }

    @Test("after downtime the missed ticks run once, coalesced; the next tick is the first aligned one after now")
    func catchUp() async throws {
        let ticks = Observations<FunctionContext>()
        let registry = try Self.registry(ticks, schedule: .every(.seconds(60)))
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registry, logger: logger) { client, _ in
            // As if every worker had been down for ten minutes: the schedule's next run lies ten ticks back.
            try await client.query(
                """
                UPDATE trigger_runtime.schedules
                SET next_run_at = to_timestamp(floor(extract(epoch FROM now()) / 60) * 60) - interval '10 minutes'
                """)
            let missedFrom = try await RuntimeHarness.count(
                client, "SELECT extract(epoch FROM next_run_at)::int8 FROM trigger_runtime.schedules")
            try await RuntimeHarness.withWorker(client: client, registry: registry, logger: logger) {
                try await ticks.wait("the catch-up tick") { !$0.isEmpty }
            }
            let tick = try #require(ticks.entries.first?.tick)
            #expect(ticks.entries.count == 1)
            #expect(Int(tick.scheduledAt.timeIntervalSince1970) == missedFrom)
            // Ten missed minutes plus the current one (the tick at or just before now), unless a minute turned
            // between the update and the worker's check.
            #expect(tick.coalesced == 11 || tick.coalesced == 12)
            let next = try await RuntimeHarness.count(
                client, "SELECT extract(epoch FROM next_run_at)::int8 FROM trigger_runtime.schedules")
            // The tick after the catch-up, or the one after that when a minute turned before the worker stopped
            // (its tick was then already inserted: seen once under the full parallel suite on a loaded machine).
            #expect(next == missedFrom + 60 * tick.coalesced || next == missedFrom + 60 * (tick.coalesced + 1))
        }
    }

    @Test("installing again keeps an unchanged schedule's next run, restarts a changed one, removes a dropped one, and dead-letters orphaned timers")
    func install() async throws {
        let ticks = Observations<FunctionContext>()
        var registry = try Self.registry(ticks, schedule: .every(.seconds(60)))
        registry.registerTimer("ring", as: String.self) { _, _ in }
        let registered = registry
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: registered, logger: logger) { client, _ in
            let installer = TriggerInstaller(client: client, logger: logger)
            let kinds = try await client.query("SELECT name, kind FROM trigger_runtime.functions ORDER BY name")
            var recorded: [String] = []
            for try await (name, kind) in kinds.decode((String, String).self) { recorded.append("\(name):\(kind)") }
            #expect(recorded == ["ring:timer", "sweep:schedule"])
            let admin = DeliveryAdmin(client: client, logger: logger)
            #expect(try await admin.schedules().map(\.schedule) == ["every 60s"])

            try await client.query("UPDATE trigger_runtime.schedules SET next_run_at = '2100-01-01T00:00:00Z'")
            try await installer.install(registered)
            #expect(try await admin.schedules().map(\.nextRunAt) == [Date(timeIntervalSince1970: 4_102_444_800)])

            var changed = FunctionRegistry()
            try changed.registerSchedule("sweep", schedule: .cron("*/5 * * * *")) { _, _ in }
            changed.registerTimer("ring", as: String.self) { _, _ in }
            try await installer.install(changed)
            let schedules = try await admin.schedules()
            #expect(schedules.map(\.schedule) == ["cron */5 * * * *"])
            #expect(try #require(schedules.first).nextRunAt < Date().addingTimeInterval(301))

            _ = try await client.withTransaction(logger: logger) { connection in
                try await PostgresTimers(logger: logger).schedule(
                    "ring", document: "d", key: "k", due: .after(.seconds(3600)), payload: nil, ifExists: .replace,
                    on: connection)
            }
            #expect(try await admin.timerSummary() == TimerSummary(pendingTimers: 1, dueTimers: 0, schedules: 1))
            #expect(try await admin.timers().map(\.key) == ["k"])
            try await installer.install(FunctionRegistry())
            #expect(try await admin.schedules().isEmpty)
            #expect(try await admin.timers().isEmpty)
            let dead = try await admin.list(dead: true)
            #expect(dead.map(\.operation) == [.timer])
            #expect(dead.first?.lastError?.contains("no longer registered") == true)

            let bad = FunctionBinding(name: "bad", kind: .schedule(.cron("* * *")))
            let refused = await #expect(throws: TriggerRuntimeError.self) { try await installer.install([bad]) }
            #expect(refused?.code == .invalidRegistration)
        }
    }
}
