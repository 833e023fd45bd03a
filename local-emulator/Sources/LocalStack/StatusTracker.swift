import Foundation
import HyperTrackAPI
import HyperTrackEmulator
import NIOHTTP1

/// Reads an order as its rider sees it, reports each status change with the emulator's time, and moves the
/// emulator's clock step by step until a condition holds.
struct StatusTracker {
    let api: StackAPI
    let order: String
    let token: String
    let emulator: HyperTrackEmulator
    let say: @Sendable (String) -> Void
    private(set) var seen: [(status: String, at: Date)] = []

    init(api: StackAPI, order: String, token: String, emulator: HyperTrackEmulator, say: @escaping @Sendable (String) -> Void) {
        self.api = api
        self.order = order
        self.token = token
        self.emulator = emulator
        self.say = say
    }

    /// The order now; prints its status when it changed.
    mutating func observe() async throws -> JSONValue {
        let view = try await self.api.expect(200, .GET, "/v1/orders/\(self.order)", token: self.token)
        if let status = view["status"].stringValue, status != self.seen.last?.status {
            let now = await self.emulator.now()
            self.seen.append((status, now))
            let time = ISO8601DateFormatter().string(from: now)
            self.say("[\(time)] \(status)")
        }
        return view
    }

    /// Observes until `condition` holds: between looks, advances a manual clock by `step` (at most `limit` emulated
    /// seconds in all) and gives the worker a moment to apply the webhooks that step delivered.
    @discardableResult
    mutating func drive(
        until what: String,
        step: Double?,
        limit: Double,
        timeout: Duration,
        _ condition: (JSONValue) -> Bool
    ) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        var elapsed = 0.0
        while true {
            let view = try await self.observe()
            if condition(view) { return view }
            guard ContinuousClock.now < deadline else {
                throw LocalStackError.timedOut("timed out waiting for \(what) (status \(view["status"].text))")
            }
            if let step, elapsed < limit {
                await self.emulator.advanceClock(by: step)
                elapsed += step
            } else if step != nil {
                throw LocalStackError.timedOut("\(what) did not happen within \(Int(limit)) emulated seconds")
            }
            var latest = self
            let settled = try await holds(within: .milliseconds(step == nil ? 100 : 500)) {
                condition(try await latest.observe())
            }
            self = latest
            if settled { return try await self.observe() }
        }
    }
}
