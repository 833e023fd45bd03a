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
                    let (status, error) = await sender.send(attempt)
                    await engine.recordAttempt(attempt, status: status, error: error, configured: sender.url != nil)
                    attempts += 1
                }
            }
            await engine.finishAdvance(at: target)
            return Result(now: target, attempts: attempts)
        }
    }
}

/// Tells waiters the server's base URL once it listens, or that it never will.
actor StartSignal {
    private var result: Result<String, HyperTrackEmulatorError>?
    private var waiters: [CheckedContinuation<Result<String, HyperTrackEmulatorError>, Never>] = []

    func resolve(_ value: Result<String, HyperTrackEmulatorError>) {
        guard result == nil else { return }
        result = value
        for waiter in waiters { waiter.resume(returning: value) }
        waiters.removeAll()
    }

    func wait() async throws(HyperTrackEmulatorError) -> String {
        let value: Result<String, HyperTrackEmulatorError>
        if let result {
            value = result
        } else {
            value = await withCheckedContinuation { waiters.append($0) }
        }
        return try value.get()
    }
}
