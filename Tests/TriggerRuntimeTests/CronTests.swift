import Foundation
import Testing
import TriggerRuntime

@Suite("Schedules and cron expressions")
struct CronTests {
    /// `2026-11-23T10:07:30Z` style instants, UTC.
    static func utc(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)!
    }

    @Test(
        "cron: the next matching minute strictly after an instant",
        arguments: [
            ("*/5 * * * *", "2026-11-23T10:07:30Z", "2026-11-23T10:10:00Z"),
            ("*/5 * * * *", "2026-11-23T10:10:00Z", "2026-11-23T10:15:00Z"),
            ("* * * * *", "2026-11-23T10:07:59Z", "2026-11-23T10:08:00Z"),
            ("0 * * * *", "2026-11-23T23:00:00Z", "2026-11-24T00:00:00Z"),
            ("30 2 * * *", "2026-11-23T03:00:00Z", "2026-11-24T02:30:00Z"),
            ("0 0 1 * *", "2026-12-15T00:00:00Z", "2027-01-01T00:00:00Z"),
            ("0 9 * * 1-5", "2026-11-27T09:00:00Z", "2026-11-30T09:00:00Z"),  // Friday → Monday
            ("0 9 * * 0", "2026-11-23T09:00:00Z", "2026-11-29T09:00:00Z"),  // Sunday as 0
            ("0 9 * * 7", "2026-11-23T09:00:00Z", "2026-11-29T09:00:00Z"),  // Sunday as 7
            ("0 0 29 2 *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"),  // leap day
            ("15,45 8-10/2 * * *", "2026-11-23T08:45:00Z", "2026-11-23T10:15:00Z"),
            ("5/20 * * * *", "2026-11-23T10:06:00Z", "2026-11-23T10:25:00Z"),
            // Both day fields restricted: either matches (the 1st, or a Monday).
            ("0 0 1 * 1", "2026-11-24T00:00:00Z", "2026-11-30T00:00:00Z"),
        ]
    )
    func cronNext(expression: String, after: String, expected: String) throws {
        #expect(try Schedule.cron(expression).next(after: Self.utc(after)) == Self.utc(expected))
    }

    @Test(
        "cron: malformed expressions are refused",
        arguments: [
            "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 8",
            "*/0 * * * *", "5-1 * * * *", "a * * * *", "1,,2 * * * *", "MON * * * *", "@hourly", "",
        ]
    )
    func cronRefused(expression: String) {
        let error = #expect(throws: TriggerRuntimeError.self) { try Schedule.cron(expression).validate() }
        #expect(error?.code == .invalidRegistration)
    }

    @Test("cron: an expression that never matches is refused when asked for its next run")
    func cronNever() {
        #expect(throws: TriggerRuntimeError.self) { try Schedule.cron("0 0 30 2 *").next(after: Date()) }
    }

    @Test("every: ticks are aligned to the epoch, not to when a worker started")
    func everyAligned() throws {
        let schedule = Schedule.every(.seconds(60))
        #expect(try schedule.next(after: Self.utc("2026-11-23T10:07:30Z")) == Self.utc("2026-11-23T10:08:00Z"))
        #expect(try schedule.next(after: Self.utc("2026-11-23T10:08:00Z")) == Self.utc("2026-11-23T10:09:00Z"))
        #expect(schedule.description == "every 60s")
        #expect(Schedule.cron(" */5 * * * * ").description == "cron */5 * * * *")
        #expect(throws: TriggerRuntimeError.self) { try Schedule.every(.milliseconds(500)).validate() }
    }

    @Test("registering a scheduled function checks its schedule")
    func registrationChecks() throws {
        var registry = FunctionRegistry()
        #expect(throws: TriggerRuntimeError.self) {
            try registry.registerSchedule("bad", schedule: .cron("61 * * * *")) { _, _ in }
        }
        #expect(registry.functions.isEmpty)
        try registry.registerSchedule("good", schedule: .cron("*/5 * * * *")) { _, _ in }
        #expect(registry.bindings.map(\.kind) == [.schedule(.cron("*/5 * * * *"))])
        #expect(registry.bindings.first?.trigger == nil)
    }
}
