import DequeModule
import Foundation
import Synchronization

/// One stream's place in its process's ``OrderEventHub``: a bounded buffer of the events it shows, filled by the
/// hub and drained by the stream's writer. A writer that falls ``capacity`` events behind (a client that does not
/// read) is closed with ``CloseReason/slowConsumer`` and its buffer dropped: memory never grows with a slow client.
public final class EventSubscription: Sendable {
    /// What the writer gets next.
    public enum Item: Sendable, Equatable {
        /// An event the stream shows.
        case event(OrderEvent)
        /// Nothing happened for a while: write a comment so proxies keep the connection.
        case heartbeat
        /// The stream ends; say why.
        case closed(CloseReason)
    }

    /// Why the server ends a stream; the final event's `reason`.
    public enum CloseReason: String, Sendable, Equatable {
        /// The client fell too far behind.
        case slowConsumer = "slow_consumer"
        /// The stream reached its maximum duration (`timeout`); reconnect with `Last-Event-ID`.
        case timeout
        /// The server is shutting down; reconnect with `Last-Event-ID`.
        case shutdown
        /// The share link was revoked or replaced (share streams only); do not reconnect.
        case revoked
    }

    private struct State {
        var items = Deque<Item>()
        var closed: CloseReason?
        var waiter: CheckedContinuation<Item, Never>?
        /// When the writer last got something (an event or a heartbeat).
        var lastActivity: ContinuousClock.Instant
    }

    /// Which events it shows.
    public let scope: OrderEventScope
    /// How many events may wait for the writer.
    public let capacity: Int
    /// When the hub ends it with ``CloseReason/timeout``.
    public let deadline: ContinuousClock.Instant
    let id: UInt64
    private let state: Mutex<State>

    init(id: UInt64, scope: OrderEventScope, capacity: Int, deadline: ContinuousClock.Instant) {
        self.id = id
        self.scope = scope
        self.capacity = capacity
        self.deadline = deadline
        self.state = Mutex(State(lastActivity: .now))
    }

    /// The next item, waiting for one. After ``Item/closed(_:)`` every call returns it again.
    public func next() async -> Item {
        await withCheckedContinuation { continuation in
            let ready = self.state.withLock { state -> Item? in
                if let item = state.items.popFirst() { return item }
                if let reason = state.closed { return .closed(reason) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Adds an event (the hub, under its lock, in position order). Over capacity, the subscription closes.
    func push(_ event: OrderEvent) {
        self.offer(.event(event))
    }

    /// Sends a heartbeat when nothing was sent for `interval`, and closes the subscription past its deadline.
    func tick(now: ContinuousClock.Instant, heartbeat interval: Duration) {
        if now >= self.deadline {
            self.close(.timeout)
            return
        }
        let idle = self.state.withLock { now - $0.lastActivity >= interval && $0.items.isEmpty }
        if idle { self.offer(.heartbeat) }
    }

    /// Ends the subscription: the writer gets `.closed(reason)` after nothing else (its buffer is dropped).
    func close(_ reason: CloseReason) {
        let waiter = self.state.withLock { state -> CheckedContinuation<Item, Never>? in
            guard state.closed == nil else { return nil }
            state.closed = reason
            state.items.removeAll()
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: .closed(reason))
    }

    private func offer(_ item: Item) {
        let (waiter, overflow) = self.state.withLock { state -> (CheckedContinuation<Item, Never>?, Bool) in
            guard state.closed == nil else { return (nil, false) }
            state.lastActivity = .now
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            if state.items.count >= self.capacity { return (nil, true) }
            state.items.append(item)
            return (nil, false)
        }
        if overflow {
            self.close(.slowConsumer)
        } else {
            waiter?.resume(returning: item)
        }
    }
}
