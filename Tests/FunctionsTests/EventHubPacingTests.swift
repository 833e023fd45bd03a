import Testing

@testable import Functions

/// When the order event hub reads on a schedule (``EventHubPacing``): the rate that starts it, the half that ends
/// it, judged only over a whole window of paced passes.
@Suite("Functions: the event hub's pacing")
struct EventHubPacingTests {
    @Test("paced from the enterAt-th pass within a second that found events; back to notifications under half of it")
    func entersAndLeaves() {
        let start = ContinuousClock.now
        var pacing = EventHubPacing(interval: .milliseconds(20), enterAt: 4)
        // Three notified passes with events within a second, and empty ones between them: not yet.
        for step in 0..<3 {
            pacing.passed(foundEvents: true, at: start + .milliseconds(100 * step))
            pacing.passed(foundEvents: false, at: start + .milliseconds(100 * step + 50))
        }
        #expect(!pacing.isPacing)
        // The first of them leaves the window before the fourth: still not.
        pacing.passed(foundEvents: true, at: start + .milliseconds(1050))
        #expect(!pacing.isPacing)
        pacing.passed(foundEvents: true, at: start + .milliseconds(1060))
        #expect(pacing.isPacing, "four within the second before 1,060 ms")
        #expect(pacing.pacedSince == start + .milliseconds(1060))

        // Paced: the passes that find nothing do not end it within its first window, however many.
        var now = start + .milliseconds(1060)
        for _ in 0..<40 {
            now += .milliseconds(20)
            pacing.passed(foundEvents: false, at: now)
        }
        #expect(pacing.isPacing, "judged over a whole window only (800 ms paced)")
        // Two passes with events in the last second: half of four is not under two, so it stays.
        pacing.passed(foundEvents: true, at: now + .milliseconds(10))
        pacing.passed(foundEvents: true, at: now + .milliseconds(20))
        pacing.passed(foundEvents: false, at: start + .milliseconds(2100))
        #expect(pacing.isPacing)
        // A second later both have left the window: back to notifications.
        pacing.passed(foundEvents: false, at: start + .milliseconds(3100))
        #expect(!pacing.isPacing)
        #expect(pacing.pacedSince == nil)
    }

    @Test("enterAt 0 or a zero interval never paces")
    func off() {
        let start = ContinuousClock.now
        for var pacing in [
            EventHubPacing(interval: .milliseconds(20), enterAt: 0), EventHubPacing(interval: .zero, enterAt: 1),
        ] {
            for step in 0..<100 { pacing.passed(foundEvents: true, at: start + .milliseconds(step)) }
            #expect(!pacing.isPacing)
        }
    }
}
