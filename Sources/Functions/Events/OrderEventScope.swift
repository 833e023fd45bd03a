import Foundation

/// Which events of the log a stream shows.
public enum OrderEventScope: Sendable, Hashable {
    /// The caller's own: events whose rider or driver is the caller (their orders, and for a driver their offers).
    case caller(UUID)
    /// One order's events that the caller (its rider or driver) may read.
    case order(UUID, caller: UUID)
    /// One order's events for its public share page (through the link whose token has the given hash): its status,
    /// legs, summary and driver positions, shown as ``ShareView``s, and the link's revocation.
    case share(UUID, tokenHash: String)

    /// The id every event the stream shows carries (as its order, rider or driver): the hub's index.
    public var key: UUID {
        switch self {
        case .caller(let caller): caller
        case .order(let order, _): order
        case .share(let order, _): order
        }
    }

    /// Whether it is a share page's stream (whose events render as ``ShareView``s).
    public var isShare: Bool {
        if case .share = self { return true }
        return false
    }

    /// Whether the stream shows `event`.
    public func includes(_ event: OrderEvent) -> Bool {
        switch self {
        case .caller(let caller):
            event.isReadable(by: caller)
        case .order(let order, let caller):
            event.orderID == order && event.isReadable(by: caller)
        case .share(let order, _):
            event.orderID == order && event.kind != .offerNew && event.kind != .offerClosed
        }
    }
}
