import Logging

extension TriggerRuntime {
    /// Whether the claim about to run is the last one a settling worker owes: every writer that may have skipped
    /// its NOTIFY has ended (or the settling has lasted a poll interval, after which the poll finds the rest).
    func isSettled(_ wakefulness: Wakefulness, now: ContinuousClock.Instant) async -> Bool {
        guard case .settling(let horizon, let since) = wakefulness else { return false }
        guard let horizon else { return now - since >= self.configuration.awakeFor }
        if now - since >= self.configuration.pollInterval { return true }
        do {
            return try await self.store.horizonPassed(horizon)
        } catch {
            // The worker keeps settling (claiming every interval) up to the limit above.
            self.logger.warning(
                "could not check whether the writers that skipped their NOTIFY have finished",
                metadata: ["error": "\(String(reflecting: error))"]
            )
            return false
        }
    }

    /// Withdraws this worker's awake declaration (and notifies); returns the horizon, or `nil` if that failed (the
    /// declaration then expires by itself).
    func withdrawAwake() async -> Int64? {
        do {
            return try await self.store.withdrawAwake(
                owner: self.configuration.workerID, channel: self.configuration.channel)
        } catch {
            self.logger.warning(
                "could not withdraw the awake declaration; it expires by itself",
                metadata: ["error": "\(String(reflecting: error))"]
            )
            return nil
        }
    }

    /// Declares, renews or withdraws wakefulness after a claim (`finalClaim`: see `isSettled`).
    func wakefulness(
        after current: Wakefulness,
        pacing: ClaimPacing,
        finalClaim: Bool,
        now: ContinuousClock.Instant
    ) async -> Wakefulness {
        let configuration = self.configuration
        if pacing.isPacing {
            if case .awake(let renewed) = current, now - renewed < configuration.awakeFor / 2 { return current }
            do {
                try await self.store.declareAwake(
                    owner: configuration.workerID, channel: configuration.channel, for: configuration.awakeFor)
                if case .awake = current {} else {
                    self.logger.debug("claims paced: writers skip their NOTIFY")
                }
                return .awake(renewed: now)
            } catch {
                self.logger.warning(
                    "could not declare the worker awake",
                    metadata: ["error": "\(String(reflecting: error))"]
                )
                // It may have committed: settle as if it had.
                return .settling(horizon: nil, since: now)
            }
        }
        switch current {
        case .asleep:
            return .asleep
        case .awake:
            return .settling(horizon: await self.withdrawAwake(), since: now)
        case .settling:
            guard finalClaim else { return current }
            self.logger.debug("settled: writers notify again")
            return .asleep
        }
    }
}
