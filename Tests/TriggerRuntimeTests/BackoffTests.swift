import Testing
@testable import TriggerRuntime

@Suite("Retry backoff")
struct BackoffTests {
    let options = FunctionOptions(
        maxAttempts: 5, initialBackoff: .milliseconds(500), maximumBackoff: .seconds(10), jitter: 0.2
    )

    @Test("delays double from the initial backoff and stop at the maximum")
    func exponential() {
        let delays = (1...8).map { Backoff.delay(afterAttempt: $0, options: self.options, random: 0) }
        #expect(
            delays == [
                .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10),
                .seconds(10),
            ]
        )
    }

    @Test("jitter takes off at most its fraction, so delays still grow")
    func jitter() {
        #expect(Backoff.delay(afterAttempt: 1, options: self.options, random: 0.5) == .milliseconds(450))
        #expect(Backoff.delay(afterAttempt: 3, options: self.options, random: 0.999_999) > .milliseconds(1600))
        for attempt in 1...4 {
            let longestNow = Backoff.delay(afterAttempt: attempt, options: self.options, random: 0)
            let shortestNext = Backoff.delay(afterAttempt: attempt + 1, options: self.options, random: 0.999_999)
            #expect(shortestNext > longestNow)
        }
    }

    @Test("huge attempt numbers and odd options do not overflow")
    func extremes() {
        #expect(Backoff.delay(afterAttempt: 10_000, options: self.options, random: 0) == .seconds(10))
        let odd = FunctionOptions(initialBackoff: .seconds(5), maximumBackoff: .seconds(1), jitter: 7)
        #expect(Backoff.delay(afterAttempt: 1, options: odd, random: 0) == .seconds(5))
        #expect(Backoff.delay(afterAttempt: 1, options: odd, random: 0.5) == .milliseconds(2500))
    }

    @Test("the last attempt dead-letters")
    func exhaustion() {
        #expect(!Backoff.isExhausted(attempt: 4, options: self.options))
        #expect(Backoff.isExhausted(attempt: 5, options: self.options))
        #expect(Backoff.isExhausted(attempt: 1, options: FunctionOptions(maxAttempts: 0)))
    }
}
