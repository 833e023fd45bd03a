import Foundation

/// The API's order actions: each is one conditional write of the ride store; when it changes nothing, the order's
/// relation to the caller explains why (404, 403 or 409).
extension APIStore {
    /// The first accept wins: one conditional UPDATE `NEW → ACCEPTED` for a driver the order was offered to.
    func accept(orderID: UUID, driver: Caller) async throws -> OrderView {
        let moved: Bool
        do {
            moved = try await self.rides.accept(orderID: orderID, driverID: driver.id)
        } catch let error as FunctionsError where error.code == .driverBusy {
            throw APIProblem.conflict("you already have an active order; finish or cancel it first")
        }
        if !moved {
            guard let relation = try await self.rides.relation(orderID: orderID, callerID: driver.id),
                relation.isOffered || relation.isDriver
            else { throw APIProblem.notFound("order \(orderID) does not exist") }
            let reason = relation.isDriver ? "you already accepted it" : "another driver accepted it first"
            throw APIProblem.conflict("order \(orderID) is \(relation.status.rawValue): \(reason)")
        }
        return try await self.requireOrder(orderID, caller: driver)
    }

    /// A driver's step on their own order (`REACHED_PICKUP → STARTED_RIDE`, `REACHED_DROPOFF → COMPLETED`).
    func advance(orderID: UUID, driver: Caller, from: OrderStatus, to: OrderStatus) async throws -> OrderView {
        if try await !self.rides.advance(orderID: orderID, driverID: driver.id, from: from, to: to) {
            let relation = try await self.rides.relation(orderID: orderID, callerID: driver.id)
            guard let relation, relation.isDriver else {
                if let relation, relation.isRider {
                    throw APIProblem.forbidden("only the order's driver can do this")
                }
                throw APIProblem.notFound("order \(orderID) does not exist")
            }
            throw APIProblem.conflict(
                "order \(orderID) is \(relation.status.rawValue); this needs \(from.rawValue)"
            )
        }
        return try await self.requireOrder(orderID, caller: driver)
    }

    /// The rider or the assigned driver cancels, until the order is finished.
    func cancel(orderID: UUID, caller: Caller, reason: String) async throws -> OrderView {
        if try await !self.rides.cancel(orderID: orderID, by: caller.id, reason: reason) {
            guard let relation = try await self.rides.relation(orderID: orderID, callerID: caller.id),
                relation.isRider || relation.isDriver
            else { throw APIProblem.notFound("order \(orderID) does not exist") }
            throw APIProblem.conflict("order \(orderID) is already \(relation.status.rawValue)")
        }
        return try await self.requireOrder(orderID, caller: caller)
    }

    func requireOrder(_ id: UUID, caller: Caller) async throws -> OrderView {
        guard let order = try await self.order(id: id, caller: caller) else {
            throw APIProblem.notFound("order \(id) does not exist")
        }
        return order
    }
}
