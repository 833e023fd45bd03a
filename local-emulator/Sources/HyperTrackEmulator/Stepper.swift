import Foundation

/// Advances the emulated clock one step at a time and makes each step's webhook attempts before the next step, so
/// a whole ride plays deterministically. Advances never overlap (the ticker and HTTP callers share one lock).
///
/// A step's attempts go out one after another, or up to ``HyperTrackEmulator/Options/webhookConcurrency`` at once
/// (their results are recorded in the step's order either way). One at a time, a 10,000-phone step of five
/// 500-event deliveries waited for each answer in turn and the clock ran at 3.4× real time when 5× was asked.
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
            let concurrency = max(await engine.options.webhookConcurrency, 1)
            while let batch = await engine.nextStep(upTo: target) {
                for start in stride(from: 0, to: batch.count, by: concurrency) {
                    let wave = Array(batch[start..<min(start + concurrency, batch.count)])
                    let results = await self.send(wave)
                    for (attempt, (outcome, milliseconds)) in zip(wave, results) {
                        await engine.recordAttempt(
                            attempt,
                            status: outcome.status,
                            error: outcome.error,
                            configured: sender.url != nil,
                            roundTrip: outcome.wireMilliseconds.map {
                                RoundTrip(milliseconds: milliseconds, wireMilliseconds: $0)
                            }
                        )
                        attempts += 1
                    }
                }
            }
            await engine.finishAdvance(at: target)
            return Result(now: target, attempts: attempts)
        }
    }

    /// Sends attempts at once; each outcome, and its round trip in ms as this task saw it (from before the call to
    /// after its return), in the attempts' order.
    private func send(_ attempts: [PendingAttempt]) async -> [(WebhookSender.Outcome, Double)] {
        let sender = self.sender
        func timed(_ attempt: PendingAttempt) async -> (WebhookSender.Outcome, Double) {
            let sent = ContinuousClock.now
            let outcome = await sender.send(attempt)
            let elapsed = (ContinuousClock.now - sent).components
            return (outcome, Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15)
        }
        if attempts.count == 1 { return [await timed(attempts[0])] }
        return await withTaskGroup(of: (Int, (WebhookSender.Outcome, Double)).self) { group in
            for (index, attempt) in attempts.enumerated() {
                group.addTask { (index, await timed(attempt)) }
            }
            var results = [(WebhookSender.Outcome, Double)](
                repeating: (WebhookSender.Outcome(), 0),
                count: attempts.count
            )
            for await (index, result) in group { results[index] = result }
            return results
        }
    }
}
