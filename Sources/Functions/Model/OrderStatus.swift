/// Where an order is in its life. The allowed transitions are enforced by the database as well as the API.
public enum OrderStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Booked by a rider, offered to drivers.
    case new = "NEW"
    /// A driver accepted; the pickup trip is being created.
    case accepted = "ACCEPTED"
    /// The driver is on the way to the pickup.
    case pickingUp = "PICKING_UP"
    /// The driver is at the pickup.
    case reachedPickup = "REACHED_PICKUP"
    /// The rider is in the car; the dropoff trip is being created.
    case startedRide = "STARTED_RIDE"
    /// On the way to the dropoff.
    case droppingOff = "DROPPING_OFF"
    /// At the dropoff.
    case reachedDropoff = "REACHED_DROPOFF"
    /// Done; the fare follows once the dropoff trip's summary arrives.
    case completed = "COMPLETED"
    /// Cancelled by the rider or the driver.
    case cancelled = "CANCELLED"

    /// The statuses this one may move to.
    public var successors: Set<OrderStatus> {
        switch self {
        case .new: [.accepted, .cancelled]
        case .accepted: [.pickingUp, .cancelled]
        case .pickingUp: [.reachedPickup, .cancelled]
        case .reachedPickup: [.startedRide, .cancelled]
        case .startedRide: [.droppingOff, .cancelled]
        case .droppingOff: [.reachedDropoff, .cancelled]
        case .reachedDropoff: [.completed, .cancelled]
        case .completed, .cancelled: []
        }
    }

    /// Whether the order is finished (completed or cancelled).
    public var isFinal: Bool { self.successors.isEmpty }

    /// Whether `self → next` is a legal transition.
    public func canMove(to next: OrderStatus) -> Bool {
        self.successors.contains(next)
    }
}
