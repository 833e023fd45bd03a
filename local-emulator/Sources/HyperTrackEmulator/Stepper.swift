import Foundation

/// Advances the emulated clock one step at a time and makes each step's webhook attempts before the next step, so
/// a whole ride plays deterministically. Advances never overlap (the ticker and HTTP callers share one lock).
struct Stepper: Sendable {
    struct Result: Sendable {
        var now: Date
        var attempts: Int
    }

    let engine: Engine
    let sender: WebhookSender
    let lock = AsyncLock()

    func advance(by seconds: Double) async -> Result {
        await lock.withLock {
            let target = await engine.now.addingTimeInterval(seconds)
            var attempts = 0
            while let batch = await engine.nextStep(upTo: target) {
                for attempt in batch {
                    let sent = ContinuousClock.now
                    let (status, error) = await sender.send(attempt)
                    let elapsed = (ContinuousClock.now - sent).components
                    await engine.recordAttempt(
                        attempt,
                        status: status,
                        error: error,
                        configured: sender.url != nil,
                        milliseconds: Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
                    )
                    attempts += 1
                }
            }
            await engine.finishAdvance(at: target)
            return Result(now: target, attempts: attempts)
        }
    }
}
