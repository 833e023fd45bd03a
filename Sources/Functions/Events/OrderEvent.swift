import Foundation

/// One committed, sequenced event of the order event log (`order_events`).
public struct OrderEvent: Sendable, Hashable {
    /// Its place in the log: the server-sent event's `id:`, what a client resumes from.
    public var position: Int64
    /// The order it is about.
    public var orderID: UUID
    /// What it says.
    public var kind: OrderEventKind
    /// The order's rider, when the rider may read it.
    public var riderID: UUID?
    /// The driver who may read it (the order's driver, or the driver an offer is made to).
    public var driverID: UUID?
    /// The trigger's JSON: the order's documents (`order`, `driver`, `legs`) or the position or offer fields.
    public var payload: String

    /// Whether `caller` is one of the parties who may read it.
    public func isReadable(by callerID: UUID) -> Bool {
        self.riderID == callerID || self.driverID == callerID
    }
}
