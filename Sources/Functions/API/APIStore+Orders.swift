import Foundation
import HTTPTypes
import PostgresNIO
import TriggerRuntime

extension APIStore {
    /// Books a ride for a rider with a complete profile (a name): 409 without one, or with an open order (not
    /// `COMPLETED` or `CANCELLED`). One statement checks, writes and returns the order; its view is that row (a new
    /// order has no driver and no legs yet). With a ``bookingRound`` the same statement runs the order's first round
    /// and sets its timers (``PreparedStatements/BookAndOffer``): the offers commit with the order, in one round trip.
    func book(riderID: UUID, pickup: PlaceBody, dropoff: PlaceBody) async throws -> OrderView {
        let booking = NewOrder(riderID: riderID, pickup: Self.place(pickup), dropoff: Self.place(dropoff))
        let order: OrderRow?
        do {
            if let round = self.bookingRound {
                order = try await self.rides.bookAndOffer(booking, round: round)?.order
            } else {
                order = try await self.rides.bookIfNamed(booking)
            }
        } catch let error where Self.isRiderBusy(error) {
            throw Self.riderBusy
        }
        guard let order else {
            throw APIProblem.conflict("complete your profile (PUT /v1/me with your name) before booking")
        }
        return try OrderView(order: order, driver: nil, legs: [])
    }

    /// Books for the holder of a live session's access token hashed as `tokenHash`, authenticated by the booking's
    /// own statement (``PostgresRideStore/bookAndOffer(tokenHash:pickup:dropoff:round:)``): the order, or `nil`,
    /// nothing written, when the token is not a live session's or its user is not a rider with a name, and always
    /// when the first round is not the booking's (HyperTrack's Nearby API): then the caller is looked up as the bearer
    /// middleware does and ``book(riderID:pickup:dropoff:)`` books.
    func book(tokenHash: String, pickup: PlaceBody, dropoff: PlaceBody) async throws -> OrderView? {
        guard let round = self.bookingRound else { return nil }
        let booked: (order: OrderRow, offered: Int)?
        do {
            booked = try await self.rides.bookAndOffer(
                tokenHash: tokenHash,
                pickup: Self.place(pickup),
                dropoff: Self.place(dropoff),
                round: round
            )
        } catch let error where Self.isRiderBusy(error) {
            throw Self.riderBusy
        }
        return try booked.map { try OrderView(order: $0.order, driver: nil, legs: []) }
    }

    /// The 409 of a booking refused by the one-open-order-per-rider rule.
    private static let riderBusy = APIProblem.conflict("you already have an open order; finish or cancel it first")

    /// A booking's place as the order's row holds it.
    private static func place(_ body: PlaceBody) -> OrderRow.Place {
        OrderRow.Place(latitude: body.lat, longitude: body.lng, address: body.address)
    }

    /// Whether `error` (or the error inside a failed transaction) is ``FunctionsError/riderBusy(_:)``.
    private static func isRiderBusy(_ error: any Error) -> Bool {
        if let error = error as? FunctionsError { return error.code == .riderBusy }
        if let error = error as? PostgresTransactionError, let inner = error.closureError {
            return Self.isRiderBusy(inner)
        }
        return false
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
