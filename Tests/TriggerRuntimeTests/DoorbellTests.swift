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

    @Test("claims are paced after two claims in a row that found several, and stay paced through gaps and backlogs")
    func pacing() {
        let start = ContinuousClock.now
        func at(_ ms: Int) -> ContinuousClock.Instant { start + .milliseconds(ms) }
        var pacing = ClaimPacing(interval: .milliseconds(5))
        #expect(pacing.nextClaim == nil)
        pacing.claimed(3, of: 64, at: at(0))
        #expect(pacing.nextClaim == nil)
        pacing.claimed(2, of: 64, at: at(1))
        #expect(pacing.isPacing)
        #expect(pacing.nextClaim == at(6))
        pacing.claimed(64, of: 64, at: at(7))
        #expect(pacing.isPacing, "a backlog keeps the worker claiming without notifications")
        #expect(pacing.nextClaim == nil, "a full claim (a backlog) claims again at once")
        pacing.claimed(1, of: 64, at: at(8))
        #expect(pacing.nextClaim == at(13), "one delivery, then a gap: still paced (used to end the pacing)")
        pacing.claimed(0, of: 64, at: at(13))
        #expect(pacing.nextClaim == at(18), "an empty paced claim schedules the next")
        // Windows follow each other from the first claim (0 ms); a window closes at the first claim a window after
        // its start. Paced since 1 ms, so the first window is not judged; the next (from 1,500 ms) is.
        pacing.claimed(0, of: 64, at: at(1_500))
        #expect(pacing.isPacing, "the window from 0 ms was not paced whole")
        for index in 1..<100 { pacing.claimed(0, of: 64, at: at(1_500 + index * 10)) }
        #expect(pacing.isPacing, "the window from 1,500 ms is not closed yet")
        pacing.claimed(0, of: 64, at: at(2_500))
        #expect(!pacing.isPacing, "in a whole paced window claims found work fewer than enterAt / 2 times")
        #expect(pacing.nextClaim == nil)
    }

    @Test("a worker behind slow handlers stays paced: its claims are rare, and each finds work")
    func pacingBehindSlowHandlers() {
        let start = ContinuousClock.now
        func at(_ ms: Int) -> ContinuousClock.Instant { start + .milliseconds(ms) }
        var pacing = ClaimPacing(interval: .milliseconds(10), enterAt: 20)
        pacing.claimed(2, of: 2, at: at(0))
        pacing.claimed(1, of: 1, at: at(200))
        #expect(pacing.isPacing, "full claims, even of the one room left")
        for index in 2..<25 { pacing.claimed(index % 2 == 0 ? 2 : 1, of: 2, at: at(index * 200)) }
        #expect(pacing.isPacing, "five claims a second, every one finding work, for five seconds")
        for index in 0..<5 { pacing.claimed(index < 3 ? 1 : 0, of: 2, at: at(5_000 + index * 200)) }
        pacing.claimed(0, of: 2, at: at(6_000))
        #expect(pacing.isPacing, "three of five claims found work: more than found none")
        for index in 1..<5 { pacing.claimed(index == 1 ? 1 : 0, of: 2, at: at(6_000 + index * 200)) }
        pacing.claimed(0, of: 2, at: at(7_000))
        #expect(!pacing.isPacing, "one of five found work: a slow machine's idle claims end the pacing too")
    }

    @Test("a stream woken one delivery per notification is paced once a window counts enterAt claims that found work")
    func pacingByRate() {
        let start = ContinuousClock.now
        func at(_ ms: Int) -> ContinuousClock.Instant { start + .milliseconds(ms) }
        var pacing = ClaimPacing(interval: .milliseconds(10), enterAt: 20)
        for index in 0..<19 { pacing.claimed(1, of: 64, at: at(index * 50)) }
        pacing.claimed(0, of: 64, at: at(960))
        pacing.claimed(1, of: 64, at: at(1_000))
        #expect(!pacing.isPacing, "19 of 20 in the first window")
        for index in 0..<20 { pacing.claimed(1, of: 64, at: at(1_010 + index * 40)) }
        #expect(!pacing.isPacing, "judged when the window closes")
        pacing.claimed(1, of: 64, at: at(2_000))
        #expect(pacing.isPacing, "21 in the window from 1,000 ms")
        // Paced from 2,000 ms: ten claims with work in each whole window keep it (the half of 20), nine end it.
        for index in 1..<100 { pacing.claimed(index % 10 == 0 ? 1 : 0, of: 64, at: at(2_000 + index * 10)) }
        pacing.claimed(0, of: 64, at: at(3_000))
        #expect(pacing.isPacing, "10 of the window's 100 claims found work: not below the half")
        for index in 1..<100 { pacing.claimed(index % 11 == 0 ? 1 : 0, of: 64, at: at(3_000 + index * 10)) }
        pacing.claimed(0, of: 64, at: at(4_000))
        #expect(!pacing.isPacing, "9 in the window from 3,000 ms")
        var stale = ClaimPacing(interval: .milliseconds(10), enterAt: 2)
        stale.claimed(1, of: 64, at: at(0))
        stale.claimed(1, of: 64, at: at(1))
        stale.claimed(1, of: 64, at: at(5_000))
        #expect(!stale.isPacing, "a window closed long after it ended does not start the pacing")
        var off = ClaimPacing(interval: .zero)
        off.claimed(5, of: 64, at: at(0))
        off.claimed(5, of: 64, at: at(1))
        #expect(!off.isPacing)
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
