import Foundation
import Functions

/// The API's writes of the state machine, with the database's rules: the first accept of an offered order wins,
/// one active order per driver, a driver steps only their own order, a finished order cannot be cancelled.
extension InMemoryRideStore {
    public func book(_ order: NewOrder) async throws -> OrderRow {
        try self.check(.book)
        let now = Date()
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

    public func accept(orderID: UUID, driverID: UUID) async throws -> Bool {
        try self.check(.accept)
        guard let order = self.state.orders[orderID], order.status == .new,
            self.state.offers[orderID]?.contains(driverID) == true
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
}
