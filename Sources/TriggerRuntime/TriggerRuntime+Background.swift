import Logging
import PostgresNIO

extension TriggerRuntime {
    /// Holds the LISTEN connection; every (re)connect rings the doorbell so the worker re-scans, because
    /// notifications sent while nobody listened are lost.
    func listen(client: PostgresClient, state: RunState) async {
        var backoff = self.configuration.reconnectBackoff
        let channel = self.configuration.channel
        while !Task.isCancelled {
            do {
                // Any error ends this connection's use: close it before the pool can hand it to someone else.
                try await client.withConnectionClosedOnFailure(closeOnAnyError: true) { connection in
                    try await connection.listen(on: channel) { notifications in
                        backoff = self.configuration.reconnectBackoff
                        self.logger.debug("listening", metadata: ["trigger.channel": "\(channel)"])
                        state.doorbell.ring()
                        for try await _ in notifications {
                            state.doorbell.ring()
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                self.logger.warning(
                    "LISTEN connection lost; reconnecting",
                    metadata: ["error": "\(String(reflecting: error))", "trigger.retry_in_ms": "\(Self.milliseconds(backoff))"]
                )
            }
            do {
                try await Task.sleep(for: backoff)
            } catch {
                return
            }
            backoff = min(backoff * 2, self.configuration.maximumReconnectBackoff)
            state.doorbell.ring()
        }
    }

    /// Renews the leases of running handlers until cancelled.
    func renewLeases(state: RunState) async {
        while true {
            do {
                try await Task.sleep(for: self.configuration.leaseRenewalInterval)
            } catch {
                return
            }
            let running = state.inFlight
            guard !running.isEmpty else { continue }
            do {
                let held = try await self.store.renew(running, lease: self.configuration.leaseDuration)
                for delivery in state.unheld(running, held: held) {
                    self.logger.warning(
                        "lease lost while the handler runs; its completion will be refused",
                        metadata: ["trigger.function": "\(delivery.function)", "trigger.event_id": "\(delivery.id)"]
                    )
                }
            } catch {
                self.logger.warning("lease renewal failed", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Prunes the done log at start and then every `pruneInterval`.
    func prune() async {
        while !Task.isCancelled {
            do {
                let pruned = try await self.store.prune(
                    olderThan: self.configuration.retention,
                    deadOlderThan: self.configuration.deadRetention
                )
                if pruned.done > 0 {
                    self.logger.debug("pruned done deliveries", metadata: ["trigger.pruned": "\(pruned.done)"])
                }
                if pruned.dead > 0 {
                    self.logger.info(
                        "deleted dead deliveries past their retention",
                        metadata: ["trigger.pruned": "\(pruned.dead)"]
                    )
                }
            } catch {
                if Task.isCancelled { return }
                self.logger.warning("pruning failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            do {
                try await Task.sleep(for: self.configuration.pruneInterval)
            } catch {
                return
            }
        }
    }
}
