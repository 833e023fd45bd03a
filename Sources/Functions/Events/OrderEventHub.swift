import Foundation
import Logging
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
/// notifications sent while nobody listened are lost. Its clock (``Configuration/tick``) sends heartbeats and ends
/// streams at their maximum duration: that is the connections' own keep-alive, which ends with the connection, not
/// something that must happen later whatever becomes of this process, so it is no durable timer of the runtime.
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

    /// The settings.
    public let configuration: Configuration
    /// The log it reads.
    public let log: OrderEventLog
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

    /// Sequences and reads on every ring or poll interval.
    private func pump() async {
        while !Task.isCancelled {
            do {
                try await self.step()
            } catch {
                if Task.isCancelled { return }
                self.logger.warning("order events: read failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            await self.doorbell.wait(timeout: self.configuration.pollInterval)
        }
    }

    /// One sequencer pass, then every new event handed to the subscriptions (a query per ``OrderEventLog/batch``
    /// events, however many streams there are).
    func step() async throws {
        while try await self.log.sequence() == OrderEventLog.batch {}
        while true {
            let cursor = self.state.withLock { $0.cursor }
            let events = try await self.log.events(after: cursor)
            guard let last = events.last else { return }
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
            if events.count < OrderEventLog.batch { return }
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
