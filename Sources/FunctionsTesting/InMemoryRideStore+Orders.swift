import Foundation
import Functions

/// The API's writes of the state machine, with the database's rules: the first accept of an offered order wins,
/// one active order per driver, a driver steps only their own order, a finished order cannot be cancelled.
extension InMemoryRideStore {
    public func book(_ order: NewOrder) async throws -> OrderRow {
        try self.check(.book)
        if self.state.orders.values.contains(where: { $0.riderID == order.riderID && !$0.status.isFinal }) {
            throw FunctionsError.riderBusy(order.riderID)
        }
        let now = self.now
        let row = OrderRow(
            id: UUID(),
            status: .new,
            riderID: order.riderID,
            pickup: order.pickup,
            dropoff: order.dropoff,
            createdAt: now,
            updatedAt: now
        )
        self.state.orders[row.id] = row
        return row
    }

    public func accept(orderID: UUID, driverID: UUID, grace: Duration) async throws -> Bool {
        try self.check(.accept)
        guard let order = self.state.orders[orderID], order.status == .new,
            self.state.offers[orderID]?.contains(where: { $0.driverID == driverID && self.isOpen($0, grace: grace) })
                == true
        else { return false }
        let busy = self.state.orders.values.contains {
            $0.driverID == driverID && ![.new, .completed, .cancelled].contains($0.status)
        }
        if busy { throw FunctionsError.driverBusy(driverID) }
        self.state.orders[orderID]?.status = .accepted
        self.state.orders[orderID]?.driverID = driverID
        return true
    }

    public func advance(orderID: UUID, driverID: UUID, from: OrderStatus, to: OrderStatus) async throws -> Bool {
        try self.check(.advance)
        guard from.canMove(to: to) else { throw InMemoryRideStoreError.illegalTransition(from: from, to: to) }
        guard let order = self.state.orders[orderID], order.status == from, order.driverID == driverID else {
            return false
        }
        self.state.orders[orderID]?.status = to
        return true
    }

    public func cancel(orderID: UUID, by callerID: UUID, reason: String) async throws -> Bool {
        try self.check(.cancel)
        guard let order = self.state.orders[orderID], order.riderID == callerID || order.driverID == callerID,
            !order.status.isFinal
        else { return false }
        self.state.orders[orderID]?.status = .cancelled
        self.state.orders[orderID]?.cancellationReason = reason
        return true
    }

    /// Marks the driver's open offer of a `NEW` order declined; returns whether it did.
    public func decline(orderID: UUID, driverID: UUID) -> Bool {
        guard self.state.orders[orderID]?.status == .new,
            let index = self.state.offers[orderID]?.firstIndex(where: { $0.driverID == driverID }),
            let offer = self.state.offers[orderID]?[index], self.isOpen(offer)
        else { return false }
        self.state.offers[orderID]?[index].declinedAt = self.now
        return true
    }

    /// Whether `offer` is not declined and expired less than `grace` ago (zero: it has not expired).
    func isOpen(_ offer: Offer, grace: Duration = .zero) -> Bool {
        offer.declinedAt == nil && offer.expiresAt > self.now - grace.secondsValue
    }
}
