import Foundation
import PostgresNIO
import TriggerRuntime

/// The API's order actions: each is one conditional write of the ride store that answers with the order's view
/// (one round trip); when it changes nothing, the order's relation to the caller explains why (404, 403 or 409).
extension APIStore {
    /// The first accept wins: one conditional UPDATE `NEW → ACCEPTED` for a driver whose offer is open or expired
    /// less than ``acceptGrace`` ago. Accepting again what one already accepted answers 200 with the order (a double
    /// tap is not an error).
    func accept(orderID: UUID, driver: Caller) async throws -> OrderView {
        let moved: OrderView?
        do {
            moved = try await self.rides.acceptWithView(orderID: orderID, driverID: driver.id, grace: self.acceptGrace)
        } catch let error as FunctionsError where error.code == .driverBusy {
            throw APIProblem.conflict("you already have an active order; finish or cancel it first")
        }
        guard let moved else {
            guard let relation = try await self.rides.relation(orderID: orderID, callerID: driver.id),
                relation.isOffered || relation.isDriver
            else { throw APIProblem.notFound("order \(orderID) does not exist") }
            if relation.isDriver && relation.status != .cancelled {
                return try await self.requireOrder(orderID, caller: driver)
            }
            let reason =
                if relation.isDriver { "it was cancelled" }
                else if relation.status != .new { "another driver accepted it first" }
                else if relation.declined { "you declined it" }
                else { "your offer expired" }
            throw APIProblem.conflict("order \(orderID) is \(relation.status.rawValue): \(reason)")
        }
        return moved
    }

    /// A driver turns down an open offer. When it was the last open offer of its round, the next round runs now
    /// (its timer is moved to now, in the same transaction).
    func decline(orderID: UUID, driver: Caller) async throws -> DeclineView {
        let logger = self.logger
        let declined = try await self.client.withTransactionClosedOnFailure(logger: logger) { connection in
            let rides = PostgresRideStore(connection: connection, logger: logger)
            guard try await rides.decline(orderID: orderID, driverID: driver.id) else { return false }
            if try await rides.openOffersExpiry(orderID: orderID) == nil {
                try await self.timers.schedule(
                    DispatchRound.name,
                    document: Dispatcher.document(orderID),
                    key: Dispatcher.roundKey,
                    due: .after(.zero),
                    payload: nil,
                    ifExists: .replace,
                    on: connection
                )
            }
            return true
        }
        if !declined {
            guard let relation = try await self.rides.relation(orderID: orderID, callerID: driver.id),
                relation.isOffered || relation.isDriver
            else { throw APIProblem.notFound("order \(orderID) does not exist") }
            let reason =
                if relation.isDriver { "you accepted it" }
                else if relation.status != .new { "it is no longer open" }
                else if relation.declined { "you already declined it" }
                else { "your offer expired" }
            throw APIProblem.conflict("order \(orderID) is \(relation.status.rawValue): \(reason)")
        }
        return DeclineView(orderID: orderID, declined: true)
    }

    /// A driver's step on their own order (`REACHED_PICKUP → STARTED_RIDE`, `REACHED_DROPOFF → COMPLETED`).
    func advance(orderID: UUID, driver: Caller, from: OrderStatus, to: OrderStatus) async throws -> OrderView {
        let moved = try await self.rides.advanceWithView(orderID: orderID, driverID: driver.id, from: from, to: to)
        guard let moved else {
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
        return moved
    }

    /// The rider or the assigned driver cancels, until the order is finished.
    func cancel(orderID: UUID, caller: Caller, reason: String) async throws -> OrderView {
        let cancelled = try await self.rides.cancelWithView(orderID: orderID, by: caller.id, reason: reason)
        guard let cancelled else {
            guard let relation = try await self.rides.relation(orderID: orderID, callerID: caller.id),
                relation.isRider || relation.isDriver
            else { throw APIProblem.notFound("order \(orderID) does not exist") }
            throw APIProblem.conflict("order \(orderID) is already \(relation.status.rawValue)")
        }
        return cancelled
    }

    func requireOrder(_ id: UUID, caller: Caller) async throws -> OrderView {
        guard let order = try await self.order(id: id, caller: caller) else {
            throw APIProblem.notFound("order \(id) does not exist")
        }
        return order
    }
}
