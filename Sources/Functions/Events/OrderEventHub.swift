import Foundation
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import Synchronization
import TriggerRuntime

/// The fan-out of the order event log to one API process's streams: ONE LISTEN connection (not one per client) on
/// ``OrderEventLog/channel``, and on each wake one sequencer pass and one read of every new event for all streams,
/// handed to each stream whose scope includes it. Run it in the process's `ServiceGroup` (``BackendComposition`` does
/// for the roles that serve the API).
///
/// A stream subscribes (``subscribe(scope:maximumDuration:)``) and gets the position the hub had read up to; every
/// later event it shows is pushed to its bounded buffer, in position order. What it missed before (a resume with
/// `Last-Event-ID`) it reads itself from the log, up to that position, so nothing falls between the two.
///
/// Besides notifications it also reads every ``Configuration/pollInterval`` and after every reconnect, because
/// notifications sent while nobody listened are lost. Under a stream of events it reads every
/// ``Configuration/pacedInterval`` instead and asks the writers to skip their notifications meanwhile
/// (``EventHubPacing``, ``M0036EventHubWakefulness``): each cost its writer a wait for a database-wide lock. Its
/// clock (``Configuration/tick``) sends heartbeats and ends streams at their maximum duration: that is the
/// connections' own keep-alive, which ends with the connection, not something that must happen later whatever
/// becomes of this process, so it is no durable timer of the runtime.
public final class OrderEventHub: Service, Sendable {
    /// How the hub and its streams behave.
    public struct Configuration: Sendable {
        /// A stream that wrote nothing for this long writes a comment line. Default 15 s.
        public var heartbeat: Duration = .seconds(15)
        /// How many events may wait for a stream's client; past that the stream is closed. Default 1000.
        public var bufferSize = 1000
        /// How often the hub reads the log without a notification. Default 1 s.
        public var pollInterval: Duration = .seconds(1)
        /// How often the hub's clock checks heartbeats and deadlines. Default 1 s.
        public var tick: Duration = .seconds(1)
        /// How long a lost LISTEN connection waits before it is opened again. Default 500 ms.
        public var reconnectDelay: Duration = .milliseconds(500)
        /// Passes within a second that found new events, after which the hub reads every ``pacedInterval`` and the
        /// writers skip their `NOTIFY` (``EventHubPacing``, ``M0036EventHubWakefulness``). Default 20; 0: never.
        public var pacedAbove = 20
        /// The interval between paced passes: the most an event waits for the hub then. Default 20 ms.
        public var pacedInterval: Duration = .milliseconds(20)
        /// How long the hub's declaration that it reads on a schedule lasts unless renewed (at half of it); the most
        /// writers go on skipping their `NOTIFY` for a hub that died. Default 2 s.
        public var awakeFor: Duration = .seconds(2)

        /// The defaults.
        public init() {}
    }

    private struct State {
        var running = false
        /// The last position read and handed to the subscriptions.
        var cursor: Int64 = 0
        var nextID: UInt64 = 0
        var subscriptions: [UInt64: EventSubscription] = [:]
        /// Subscription ids by their scope's ``OrderEventScope/key``: an event goes to the streams of its rider,
        /// its driver and its order only. Offering every event to every stream cost the API a check per stream per
        /// event (perf of the 10,000-driver simulation: the hub's fan-out was the API's largest user of CPU, 12,000
        /// streams × hundreds of events a second).
        var byKey: [UUID: Set<UInt64>] = [:]

        mutating func remove(_ id: UInt64) {
            guard let subscription = self.subscriptions.removeValue(forKey: id) else { return }
            let key = subscription.scope.key
            self.byKey[key]?.remove(id)
            if self.byKey[key]?.isEmpty == true { self.byKey[key] = nil }
        }
    }

    /// Whether the writers were asked to skip their `NOTIFY` (``M0036EventHubWakefulness``).
    private enum Wakefulness {
        /// Not asked: the hub passes on notifications (and every poll interval).
        case asleep
        /// Asked, last renewed at `renewed`: the hub passes every paced interval.
        case awake(renewed: ContinuousClock.Instant)
        /// The request was withdrawn (or may have been made): the hub passes every paced interval until `until`,
        /// so an event whose writer skipped its `NOTIFY` before the withdrawal is not left to the poll interval.
        case settling(until: ContinuousClock.Instant)

        var isPolling: Bool {
            if case .asleep = self { return false }
            return true
        }

        var isAwake: Bool {
            if case .awake = self { return true }
            return false
        }
    }

    /// How long the hub's registration as waiting for notifications (``M0037EventHubListening``) lasts unless
    /// renewed: three poll intervals (at least its `awakeFor`), renewed at each pass after half of it. An asleep hub
    /// passes at least every poll interval, so it renews in time unless its passes fail; then the sequencers stop
    /// notifying for it and it reads at its poll.
    var listeningFor: Duration { max(self.configuration.awakeFor, self.configuration.pollInterval * 3) }

    /// The settings.
    public let configuration: Configuration
    /// The log it reads.
    public let log: OrderEventLog
    /// This hub's row in `order_event_hubs_awake` while it is awake, and in `order_event_hubs_listening` while not.
    let id = "hub-\(UUID().uuidString.lowercased())"
    let logger: Logger
    private let state = Mutex(State())
    private let doorbell = Doorbell()

    /// Creates a hub; it serves streams once ``run()`` has read the log's head.
    /// - Parameters:
    ///   - client: The database (its pool lends the LISTEN connection and the reads).
    ///   - configuration: Heartbeat, buffer and polling.
    ///   - logger: Logs lost connections and failed reads.
    public init(client: PostgresClient, configuration: Configuration = Configuration(), logger: Logger) {
        self.configuration = configuration
        self.log = OrderEventLog(client: client, logger: logger)
        self.logger = logger
    }

    /// Whether it runs (a process that does not run it cannot serve streams).
    public var isRunning: Bool { self.state.withLock { $0.running } }

    /// How many streams are subscribed.
    public var subscriberCount: Int { self.state.withLock { $0.subscriptions.count } }

    /// Subscribes a stream.
    /// - Returns: The subscription and the position after which the hub pushes events to it (the stream reads
    ///   what it missed up to this position from the log); `nil` when the hub does not run.
    public func subscribe(
        scope: OrderEventScope,
        maximumDuration: Duration
    ) -> (subscription: EventSubscription, from: Int64)? {
        self.state.withLock { state in
            guard state.running else { return nil }
            state.nextID += 1
            let subscription = EventSubscription(
                id: state.nextID,
                scope: scope,
                capacity: self.configuration.bufferSize,
                deadline: .now + maximumDuration
            )
            state.subscriptions[state.nextID] = subscription
            state.byKey[scope.key, default: []].insert(state.nextID)
            return (subscription, state.cursor)
        }
    }

    /// Ends a stream's subscription (its writer is done).
    public func unsubscribe(_ subscription: EventSubscription) {
        self.state.withLock { $0.remove(subscription.id) }
    }

    public func run() async throws {
        // The log may not exist yet (an API started before `migrate`; /readyz says so): wait for it rather than
        // ending the process.
        var last: Int64?
        while last == nil {
            do {
                last = try await self.log.ends().last
            } catch {
                self.logger.warning(
                    "order events: the log is not readable yet; streams wait for it",
                    metadata: ["error": "\(String(reflecting: error))"]
                )
                do {
                    // The retry's clock: nothing signals that migrations have created the log.
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(5)) }
                } catch {
                    return
                }
            }
        }
        guard let last else { return }
        self.state.withLock {
            $0.cursor = last
            $0.running = true
        }
        self.logger.debug("order event hub running", metadata: ["events.position": "\(last)"])
        await withDiscardingTaskGroup { group in
            group.addTask { await self.listen() }
            group.addTask { await self.clock() }
            group.addTask { await self.pump() }
            // Until the process shuts down (streams end themselves on the server's graceful shutdown) or is
            // cancelled.
            try? await gracefulShutdown()
            group.cancelAll()
        }
        self.stop()
    }

    /// Stops serving: every stream ends with ``EventSubscription/CloseReason/shutdown``.
    private func stop() {
        let subscriptions = self.state.withLock { state -> [EventSubscription] in
            state.running = false
            defer {
                state.subscriptions.removeAll()
                state.byKey.removeAll()
            }
            return Array(state.subscriptions.values)
        }
        for subscription in subscriptions { subscription.close(.shutdown) }
    }

    /// Holds the LISTEN connection; each (re)connect rings the doorbell, since notifications sent while nobody
    /// listened are lost.
    private func listen() async {
        let client = self.log.client
        while !Task.isCancelled {
            do {
                try await client.withConnectionClosedOnFailure(closeOnAnyError: true) { connection in
                    try await connection.listen(on: OrderEventLog.channel) { notifications in
                        self.doorbell.ring()
                        for try await _ in notifications { self.doorbell.ring() }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                self.logger.warning(
                    "order events: LISTEN connection lost; reconnecting",
                    metadata: ["error": "\(String(reflecting: error))"]
                )
            }
            // The reconnect back-off's clock (a lost connection signals nothing when the server is back).
            do { try await Task.sleep(for: self.configuration.reconnectDelay) } catch { return }
            self.doorbell.ring()
        }
    }

    /// Sequences and reads on every ring or poll interval, or every paced interval under a stream of events.
    private func pump() async {
        var pacing = EventHubPacing(interval: self.configuration.pacedInterval, enterAt: self.configuration.pacedAbove)
        var wakefulness = Wakefulness.asleep
        // When the registration as waiting for notifications was last written (`nil`: not registered).
        var listened: ContinuousClock.Instant?
        while !Task.isCancelled {
            // Registered before the pass, so whatever a sequencer gives positions after the pass is either read by
            // it or notified.
            if !wakefulness.isAwake {
                let now = ContinuousClock.now
                if listened.map({ now - $0 >= self.listeningFor / 2 }) ?? true {
                    do {
                        try await self.log.listen(hub: self.id, for: self.listeningFor)
                        listened = now
                    } catch {
                        if Task.isCancelled { break }
                        self.logger.warning(
                            "order events: could not register the hub as listening; it reads at its poll",
                            metadata: ["error": "\(String(reflecting: error))"]
                        )
                    }
                }
            }
            var found = false
            do {
                found = try await self.step()
            } catch {
                if Task.isCancelled { break }
                self.logger.warning("order events: read failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            let now = ContinuousClock.now
            pacing.passed(foundEvents: found, at: now)
            wakefulness = await self.wakefulness(after: wakefulness, pacing: pacing, now: now, listened: &listened)
            if wakefulness.isPolling {
                // The paced passes' clock: when this process reads the log, not work that must happen later.
                let paused = ContinuousClock.now
                do { try await Task.sleep(for: self.configuration.pacedInterval) } catch { break }
                EventHubMetrics.paused(ContinuousClock.now - paused)
                // A ring meanwhile (the hub's own sequencer notifies) is served by the pass about to run.
                self.doorbell.clear()
            } else {
                await self.doorbell.wait(timeout: self.configuration.pollInterval)
            }
        }
        // Cancelled: a task of its own, so the withdrawal is sent.
        let log = self.log
        let id = self.id
        do {
            try await Task { try await log.leave(hub: id) }.value
        } catch {
            self.logger.warning(
                "order events: could not delete the hub's declaration and registration at shutdown; they expire",
                metadata: [
                    "error": "\(String(reflecting: error))", "events.awake_for": "\(self.configuration.awakeFor)",
                ]
            )
        }
    }

    /// Declares, renews or withdraws the hub's request that writers skip their `NOTIFY`, after a pass.
    private func wakefulness(
        after current: Wakefulness,
        pacing: EventHubPacing,
        now: ContinuousClock.Instant,
        listened: inout ContinuousClock.Instant?
    ) async -> Wakefulness {
        let awakeFor = self.configuration.awakeFor
        if pacing.isPacing {
            if case .awake(let renewed) = current, now - renewed < awakeFor / 2 { return current }
            // A declaration deletes the registration (if it committed: after an error too); the withdrawal's
            // statement writes it back.
            listened = nil
            do {
                try await self.log.declareAwake(hub: self.id, for: awakeFor)
                if case .awake = current {} else { self.logger.debug("order events: paced; writers skip their NOTIFY") }
                return .awake(renewed: now)
            } catch {
                self.logger.warning(
                    "order events: could not declare the hub awake",
                    metadata: ["error": "\(String(reflecting: error))"]
                )
                // It may have committed: poll until it would have expired.
                return .settling(until: now + awakeFor)
            }
        }
        switch current {
        case .asleep:
            return .asleep
        case .awake:
            do {
                // One statement: the declaration withdrawn, the registration written.
                try await self.log.listen(hub: self.id, for: self.listeningFor)
                listened = now
                self.logger.debug("order events: no longer paced; writers notify again")
                // The writers that read the row before its deletion commit within moments.
                return .settling(until: now + awakeFor / 4)
            } catch {
                self.logger.warning(
                    "order events: could not withdraw the hub's declaration; it expires by itself",
                    metadata: ["error": "\(String(reflecting: error))"]
                )
                return .settling(until: now + awakeFor)
            }
        case .settling(let until):
            return now >= until ? .asleep : current
        }
    }

    /// One sequencer pass, then every new event handed to the subscriptions (a query per ``OrderEventLog/batch``
    /// events, however many streams there are); each part timed (``EventHubMetrics``).
    /// - Returns: Whether it read new events.
    func step() async throws -> Bool {
        let start = ContinuousClock.now
        while try await self.log.sequence() == OrderEventLog.batch {}
        let sequenced = ContinuousClock.now
        let found = try await self.handOut()
        EventHubMetrics.pass(sequence: sequenced - start, read: ContinuousClock.now - sequenced)
        return found
    }

    /// Reads every event after the cursor and pushes each to the streams whose scope includes it; returns whether
    /// there was any.
    private func handOut() async throws -> Bool {
        var found = false
        while true {
            let cursor = self.state.withLock { $0.cursor }
            let events = try await self.log.events(after: cursor)
            guard let last = events.last else { return found }
            found = true
            self.state.withLock { state in
                // Under the lock, so a subscription made now gets either all of these (pushed) or none (read).
                for event in events {
                    var offered: Set<UInt64> = []
                    for key in [event.orderID, event.riderID, event.driverID].compactMap({ $0 }) {
                        for id in state.byKey[key] ?? [] where offered.insert(id).inserted {
                            guard let subscription = state.subscriptions[id], subscription.scope.includes(event)
                            else { continue }
                            subscription.push(event)
                        }
                    }
                }
                state.cursor = last.position
            }
            if events.count < OrderEventLog.batch { return found }
        }
    }

    /// Heartbeats and deadlines, once per ``Configuration/tick`` for all streams.
    private func clock() async {
        while !Task.isCancelled {
            // The heartbeat clock of the connections themselves (they end with their connection): not durable work.
            do { try await Task.sleep(for: self.configuration.tick) } catch { return }
            let now = ContinuousClock.now
            let subscriptions = self.state.withLock { Array($0.subscriptions.values) }
            for subscription in subscriptions {
                subscription.tick(now: now, heartbeat: self.configuration.heartbeat)
            }
        }
    }
}

/// The hub's own metric: `order_events.hub.duration` (timer, `stage` = `sequence`, `read`, `pause`), one observation
/// of the first two per pass: the sequencer's statement(s) (``OrderEventLog/sequence()``), then the reads of the new
/// events and their hand-out to the streams; and while paced, one of the pause between two passes as it lasted (asked
/// for ``OrderEventHub/Configuration/pacedInterval``; longer when the process's threads were busy).
///
/// Why: every event a stream shows waits for a pass, so a pass's time is in every offer a driver sees, and the
/// report's split of the offer (the 42nd session) could not tell it from `dispatchOrder`'s own run. The pause: in the
/// 54th session's city an offer's event waited p50 14-16 ms but p99 88-167 ms from its commit to its position's,
/// while 99.0-99.7% of the passes took under 50 ms; timed, the paced pauses lasted under 50 ms in 99.0% and under
/// 100 ms in 99.9% (BENCHMARKS, 54th section), so the long waits are not the hub oversleeping.
enum EventHubMetrics {
    static func pass(sequence: Duration, read: Duration) {
        for (stage, duration) in [("sequence", sequence), ("read", read)] {
            Metrics.Timer(label: "order_events.hub.duration", dimensions: [("stage", stage)]).record(duration: duration)
        }
    }

    static func paused(_ duration: Duration) {
        Metrics.Timer(label: "order_events.hub.duration", dimensions: [("stage", "pause")]).record(duration: duration)
    }
}
