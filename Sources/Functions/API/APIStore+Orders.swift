import Foundation
import HTTPTypes

extension APIStore {
    /// Books a ride for a rider with a complete profile (a name): 409 without one, or with an open order (not
    /// `COMPLETED` or `CANCELLED`). One statement checks, writes and returns the order; its view is that row (a new
    /// order has no driver and no legs yet).
    func book(riderID: UUID, pickup: PlaceBody, dropoff: PlaceBody) async throws -> OrderView {
        let order: OrderRow?
        do {
            order = try await self.rides.bookIfNamed(
                NewOrder(
                    riderID: riderID,
                    pickup: OrderRow.Place(latitude: pickup.lat, longitude: pickup.lng, address: pickup.address),
                    dropoff: OrderRow.Place(latitude: dropoff.lat, longitude: dropoff.lng, address: dropoff.address)
                )
            )
        } catch let error as FunctionsError where error.code == .riderBusy {
            throw APIProblem.conflict("you already have an open order; finish or cancel it first")
        }
        guard let order else {
            throw APIProblem.conflict("complete your profile (PUT /v1/me with your name) before booking")
        }
        return try OrderView(order: order, driver: nil, legs: [])
    }

    /// The order if the caller may see it: its rider, its driver, or a driver it is offered to while NEW.
    func order(id: UUID, caller: Caller) async throws -> OrderView? {
        try await self.rides.orderView(id: id, visibleTo: caller.id)
    }

    /// The caller's orders (as rider, or as driver), newest first, after `cursor`.
    func orders(of caller: Caller, limit: Int, after cursor: OrderCursor?) async throws -> OrderPage {
        // One more than asked for tells whether there is a next page.
        let orders = try await self.rides.orderViews(of: caller, limit: limit + 1, after: cursor)
        let page = orders.prefix(limit)
        let next = orders.count > limit ? page.last.map(\.position.description) : nil
        return OrderPage(orders: page.map(\.view), nextCursor: next)
    }

    /// NEW orders offered to the driver, newest offer first.
    func offers(driverID: UUID) async throws -> [OrderView] {
        try await self.rides.offeredOrders(driverID: driverID)
    }
}
