import Foundation
import Testing

@testable import TriggerRuntime

@Suite("Doorbell and claim pacing", .timeLimit(.minutes(1)))
struct DoorbellTests {
    @Test("a ring before the wait ends the next wait at once, once")
    func ringBeforeWait() async {
        let doorbell = Doorbell()
        doorbell.ring()
        doorbell.ring()
        let start = ContinuousClock.now
        await doorbell.wait(timeout: .seconds(30))
        #expect(ContinuousClock.now - start < .seconds(10))
        // The two rings counted once: this wait runs to its timeout.
        let second = ContinuousClock.now
        await doorbell.wait(timeout: .milliseconds(20))
        #expect(ContinuousClock.now - second >= .milliseconds(20))
    }

    @Test("a ring wakes a waiting wait")
    func ringWakesWaiter() async {
        let doorbell = Doorbell()
        let start = ContinuousClock.now
        async let waited: Void = doorbell.wait(timeout: .seconds(30))
        // Whether the ring comes before or after the wait begins, it ends the wait.
        doorbell.ring()
        await waited
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("cancellation ends a wait")
    func cancellationEndsWait() async {
        let doorbell = Doorbell()
        let start = ContinuousClock.now
        let task = Task { await doorbell.wait(timeout: .seconds(30)) }
        task.cancel()
        await task.value
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("a wait's timer does not end a later wait early")
    func staleTimerIgnored() async {
        let doorbell = Doorbell()
        // This wait is rung at once; its 30 ms timer stays scheduled until cancelled.
        doorbell.ring()
        await doorbell.wait(timeout: .milliseconds(30))
        let start = ContinuousClock.now
        await doorbell.wait(timeout: .milliseconds(100))
        #expect(ContinuousClock.now - start >= .milliseconds(100))
    }

    @Test("claims are paced only after two claims in a row that found several but not a full batch")
    func pacing() {
        let start = ContinuousClock.now
        var pacing = ClaimPacing(interval: .milliseconds(5))
        #expect(pacing.nextClaim == nil)
        pacing.claimed(3, of: 64, at: start)
        #expect(pacing.nextClaim == nil)
        pacing.claimed(2, of: 64, at: start + .milliseconds(1))
        #expect(pacing.nextClaim == start + .milliseconds(6))
        pacing.claimed(64, of: 64, at: start + .milliseconds(7))
        #expect(pacing.nextClaim == nil, "a full claim (a backlog) claims again at once")
        pacing.claimed(5, of: 64, at: start + .milliseconds(8))
        pacing.claimed(5, of: 64, at: start + .milliseconds(9))
        #expect(pacing.nextClaim != nil)
        pacing.claimed(1, of: 64, at: start + .milliseconds(14))
        #expect(pacing.nextClaim == nil, "one delivery per interval: pacing would only add latency")
        pacing.claimed(5, of: 64, at: start + .milliseconds(15))
        pacing.claimed(5, of: 64, at: start + .milliseconds(16))
        pacing.claimed(0, of: 64, at: start + .milliseconds(21))
        #expect(pacing.nextClaim == nil, "an empty claim (idle) claims the next notification at once")
        var off = ClaimPacing(interval: .zero)
        off.claimed(5, of: 64, at: start)
        off.claimed(5, of: 64, at: start)
        #expect(off.nextClaim == nil)
    }

    @Test("the worker queues about 100 ms of work at the rate its handlers finish, between half a batch and two")
    func claimAhead() {
        var configuration = TriggerRuntime.Configuration()
        configuration.batchSize = 64
        #expect(configuration.claimAhead(completionRate: 0) == 32, "idle or slow handlers: half a batch")
        #expect(configuration.claimAhead(completionRate: 500) == 50)
        #expect(configuration.claimAhead(completionRate: 10_000) == 128, "fast handlers: two batches")
        #expect(configuration.claimAhead(completionRate: .infinity) == 128)
        configuration.batchSize = 1
        #expect(configuration.claimAhead(completionRate: 0) == 1)
    }

    @Test("lanes take the first tier with deliveries queued, and one of a later tier after three in a row")
    func tiersInTurn() {
        let state = RunState(priorities: ["offer": .high, "arrival": .elevated, "bookkeeping": .normal])
        // Queued in commit order, the normal ones first.
        let functions: [(FunctionName, Int)] = [("bookkeeping", 8), ("arrival", 12), ("offer", 24)]
        var id: Int64 = 0
        let deliveries = functions.flatMap { function, count in
            (1...count).map { _ in
                id += 1
                return Delivery(
                    id: id, function: function, table: "t", operation: .create, documentKey: "\(id)", before: nil,
                    after: nil, committedAt: Date(), attempt: 1, leaseToken: UUID()
                )
            }
        }
        state.enqueue(deliveries, full: false)
        let initials = (1...44).map { _ in state.next().map { String($0.function.rawValue.prefix(1)) } ?? "-" }
        // Three offers, an arrival; after three arrivals so, a normal delivery; twice. With the offers gone,
        // arrivals and the others three to one; then the others alone.
        let cycle = "oooaoooaoooaooob"
        #expect(initials.joined() == cycle + cycle + "aaabaaab" + "bbbb", "\(initials.joined())")
        #expect(state.next() == nil)
        #expect(state.queuedCount == 0)
        #expect(state.isUrgent(deliveries[8]) && state.isUrgent(deliveries[20]) && !state.isUrgent(deliveries[0]))
    }

    @Test("the completion rate adds finished deliveries and decays with time")
    func completionRate() {
        let state = RunState()
        #expect(state.completionRate == 0)
        let deliveries = (1...100).map {
            Delivery(
                id: Int64($0), function: "f", table: "t", operation: .create, documentKey: "\($0)", before: nil,
                after: nil, committedAt: Date(), attempt: 1, leaseToken: UUID()
            )
        }
        state.finish(deliveries)
        let rate = state.completionRate
        #expect(rate > 500 && rate <= 1000, "100 finished just now count as 1,000 per second over 100 ms")
    }
}
