import Foundation
import Synchronization

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
    /// The server-sent events it renders to, kept with this read of it: the hub pushes one read of an event to
    /// every stream that shows it, and the first stream to write it renders it for the others.
    let frames = OrderEventFrames()

    /// Whether `caller` is one of the parties who may read it.
    public func isReadable(by callerID: UUID) -> Bool {
        self.riderID == callerID || self.driverID == callerID
    }

    // The rendered frames are a cache of the fields below, not part of the event's value.
    public static func == (lhs: OrderEvent, rhs: OrderEvent) -> Bool {
        lhs.position == rhs.position && lhs.orderID == rhs.orderID && lhs.kind == rhs.kind
            && lhs.riderID == rhs.riderID && lhs.driverID == rhs.driverID && lhs.payload == rhs.payload
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.position)
        hasher.combine(self.orderID)
        hasher.combine(self.kind)
        hasher.combine(self.riderID)
        hasher.combine(self.driverID)
        hasher.combine(self.payload)
    }
}

/// An event's rendered server-sent events, one for the parties' streams and one for share pages (the only thing a
/// rendering depends on besides the event: ``OrderEventRenderer/render(_:share:)``).
///
/// Why: rendering decodes the order's documents from the log's JSON and encodes its view with Foundation's coders,
/// and every stream that shows the event did it again. In the 37th session's profile of the 10,000-driver city it was
/// the API's largest part (21% of its samples) with two streams an order event (the rider's and the driver's); a
/// rider with the app open on two devices and a share page open makes it four. A race between two first streams
/// renders twice and keeps one: both frames are the same.
final class OrderEventFrames: Sendable {
    private let frames = Mutex<(party: String?, share: String?)>((nil, nil))

    /// The frame for a party's stream (`share == false`) or a share page's, rendered by `render` the first time.
    func frame(share: Bool, render: () throws -> String) rethrows -> String {
        if let frame = self.frames.withLock({ share ? $0.share : $0.party }) { return frame }
        let frame = try render()
        self.frames.withLock {
            if share { $0.share = frame } else { $0.party = frame }
        }
        return frame
    }
}
