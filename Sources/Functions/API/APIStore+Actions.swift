import Foundation
import Logging
import PostgresNIO

extension APIStore {
    /// What the caller is to an order, for explaining a conditional update that changed nothing.
    struct Relation {
        var status: OrderStatus
        var isRider: Bool
        var isDriver: Bool
        var isOffered: Bool
    }

    func relation(orderID: UUID, caller: Caller) async throws -> Relation? {
        let rows = try await self.client.query(
            """
            SELECT o.status, o.rider_id = \(caller.id), coalesce(o.driver_id = \(caller.id), false),
                   EXISTS (SELECT 1 FROM order_offers f WHERE f.order_id = o.id AND f.driver_id = \(caller.id))
            FROM orders o WHERE o.id = \(orderID)
            """,
            logger: self.logger
        )
        for try await (status, isRider, isDriver, isOffered) in rows.decode((String, Bool, Bool, Bool).self) {
            guard let status = OrderStatus(rawValue: status) else { return nil }
            return Relation(status: status, isRider: isRider, isDriver: isDriver, isOffered: isOffered)
        }
        return nil
    }

    /// The first accept wins: one conditional UPDATE `NEW → ACCEPTED` for a driver the order was offered to.
    func accept(orderID: UUID, driver: Caller) async throws -> OrderView {
        let updated: Int
        do {
            updated = try await Self.count(
                self.client.query(
                    """
                    UPDATE orders o SET status = 'ACCEPTED', driver_id = \(driver.id)
                    WHERE o.id = \(orderID) AND o.status = 'NEW' AND EXISTS (
                        SELECT 1 FROM order_offers f WHERE f.order_id = o.id AND f.driver_id = \(driver.id))
                    RETURNING o.id
                    """,
                    logger: self.logger
                )
            )
        } catch let error where Self.isUniqueViolation(error) {
            throw APIProblem.conflict("you already have an active order; finish or cancel it first")
        }
        if updated == 0 {
            guard let relation = try await self.relation(orderID: orderID, caller: driver),
                relation.isOffered || relation.isDriver
            else { throw APIProblem.notFound("order \(orderID) does not exist") }
            let reason = relation.isDriver ? "you already accepted it" : "another driver accepted it first"
            throw APIProblem.conflict("order \(orderID) is \(relation.status.rawValue): \(reason)")
        }
        return try await self.requireOrder(orderID, caller: driver)
    }

    /// A driver's step on their own order (`REACHED_PICKUP → STARTED_RIDE`, `REACHED_DROPOFF → COMPLETED`).
    func advance(orderID: UUID, driver: Caller, from: OrderStatus, to: OrderStatus) async throws -> OrderView {
        let updated = try await Self.count(
            self.client.query(
                """
                UPDATE orders SET status = \(to.rawValue)
                WHERE id = \(orderID) AND driver_id = \(driver.id) AND status = \(from.rawValue)
                RETURNING id
                """,
                logger: self.logger
            )
        )
        if updated == 0 {
            let relation = try await self.relation(orderID: orderID, caller: driver)
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
        let updated = try await Self.count(
            self.client.query(
                """
                UPDATE orders SET status = 'CANCELLED', cancellation_reason = \(reason), cancelled_by = \(caller.id)
                WHERE id = \(orderID) AND (rider_id = \(caller.id) OR driver_id = \(caller.id))
                  AND status NOT IN ('COMPLETED', 'CANCELLED')
                RETURNING id
                """,
                logger: self.logger
            )
        )
        if updated == 0 {
            guard let relation = try await self.relation(orderID: orderID, caller: caller),
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
