import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// The order state machine's writes: the only place that writes `orders`. Each is one conditional statement, so
/// a write that lost a race (or repeats) changes nothing and says so; the database's transition trigger refuses
/// anything `OrderStatus.successors` does not allow.
extension PostgresRideStore {
    public func book(_ order: NewOrder) async throws -> OrderRow {
        let booked: [OrderRow]
        do {
            booked = try await self.executor.documents(
                """
                INSERT INTO orders AS o (rider_id, pickup_lat, pickup_lng, pickup_address, dropoff_lat, dropoff_lng,
                                         dropoff_address)
                VALUES (\(order.riderID), \(order.pickup.latitude), \(order.pickup.longitude), \(order.pickup.address),
                        \(order.dropoff.latitude), \(order.dropoff.longitude), \(order.dropoff.address))
                RETURNING to_jsonb(o)::text
                """,
                as: OrderRow.self,
                logger: self.logger
                )
        } catch let error where PostgresErrors.isUniqueViolation(error) {
            // orders_rider_id_open_idx: one open order per rider.
            throw FunctionsError.riderBusy(order.riderID)
        }
        guard let booked = booked.first else { throw FunctionsError.malformedRow("booking returned no order") }
        return booked
    }

    /// Books `order` if its rider is a rider with a name (the API's booking: ``PreparedStatements/BookOrder``, one
    /// round trip); `nil`, writing nothing, when they are not. Throws ``FunctionsError/riderBusy(_:)`` as ``book(_:)``
    /// does.
    func bookIfNamed(_ order: NewOrder) async throws -> OrderRow? {
        let documents: [String]
        do {
            documents = try await self.executor.rows(PreparedStatements.BookOrder(order: order), logger: self.logger)
        } catch let error where PostgresErrors.isUniqueViolation(error) {
            throw FunctionsError.riderBusy(order.riderID)
        }
        return try documents.first.map { try JSONDecoder.rowDecoder().decode(OrderRow.self, from: Data($0.utf8)) }
    }

    /// Books `order` as ``bookIfNamed(_:)`` does and runs its first dispatch round in the same statement
    /// (``PreparedStatements/BookAndOffer``, with `round`'s first radius, offer count, lifetime and position age), its
    /// round and window timers with it: the order (its `dispatch_round` 1, so `dispatchOrder` does not fire) and how
    /// many drivers were offered it; `nil`, writing nothing, when the user is not a rider with a name. One round trip:
    /// the statement commits on its own, or inside the executor's transaction. Throws
    /// ``TriggerRuntimeError/Code/functionNotRegistered`` when a dispatch timer function is not installed (nothing
    /// written).
    func bookAndOffer(_ order: NewOrder, round: BookingRound) async throws -> (order: OrderRow, offered: Int)? {
        try await self.booked(
            PreparedStatements.BookAndOffer(order: order, round: round),
            busy: { FunctionsError.riderBusy(order.riderID) }
        )
    }

    /// ``bookAndOffer(_:round:)`` for the holder of a live session's access token hashed as `tokenHash`
    /// (``PreparedStatements/BookAndOfferWithToken``): `nil`, writing nothing, when it is not a live session's token
    /// or its user is not a rider with a name. Throws ``FunctionsError/riderBusy(_:)`` (with no rider id: the
    /// statement that would have told it failed) and as ``bookAndOffer(_:round:)`` does.
    func bookAndOffer(
        tokenHash: String,
        pickup: OrderRow.Place,
        dropoff: OrderRow.Place,
        round: BookingRound
    ) async throws -> (order: OrderRow, offered: Int)? {
        try await self.booked(
            PreparedStatements.BookAndOfferWithToken(
                tokenHash: tokenHash,
                pickup: pickup,
                dropoff: dropoff,
                round: round
            ),
            busy: { FunctionsError.riderBusy(nil) }
        )
    }

    /// Runs a booking statement and reads its row: a unique violation (one open order per rider) as `busy()`, a
    /// refused timer as ``PostgresTimers/runtimeError(_:)`` maps it, the timers it set counted.
    private func booked<Statement: PostgresPreparedStatement>(
        _ statement: Statement,
        busy: () -> FunctionsError
    ) async throws -> (order: OrderRow, offered: Int)? where Statement.Row == PreparedStatements.BookAndOffer.Row {
        let rows: [PreparedStatements.BookAndOffer.Row]
        do {
            rows = try await self.executor.rows(statement, logger: self.logger)
        } catch let error where PostgresErrors.isUniqueViolation(error) {
            throw busy()
        } catch {
            throw PostgresTimers.runtimeError(error)
        }
        guard let row = rows.first else { return nil }
        PostgresTimers.recordScheduled(DispatchRound.name, count: row.roundTimer ? 1 : 0)
        PostgresTimers.recordScheduled(DispatchWindow.name, count: row.windowTimer ? 1 : 0)
        return (try JSONDecoder.rowDecoder().decode(OrderRow.self, from: Data(row.document.utf8)), row.offered)
    }

    public func accept(orderID: UUID, driverID: UUID, grace: Duration) async throws -> Bool {
        do {
            return try await self.executor.count(
                Prepared(StoreStatements.Accept.self, driverID, orderID, grace.seconds),
                logger: self.logger
            ) > 0
        } catch let error where PostgresErrors.isUniqueViolation(error) {
            // orders_driver_id_active_idx: one active order per driver.
            throw FunctionsError.driverBusy(driverID)
        }
    }

    public func advance(orderID: UUID, driverID: UUID, from: OrderStatus, to: OrderStatus) async throws -> Bool {
        guard from.canMove(to: to) else { throw FunctionsError.illegalTransition(from, to) }
        return try await self.executor.count(
            Prepared(StoreStatements.Advance.self, to.rawValue, orderID, driverID, from.rawValue),
            logger: self.logger
        ) > 0
    }

    public func cancel(orderID: UUID, by callerID: UUID, reason: String) async throws -> Bool {
        try await self.executor.count(
            Prepared(StoreStatements.Cancel.self, reason, callerID, orderID),
            logger: self.logger
        ) > 0
    }

    /// ``accept(orderID:driverID:grace:)``, answered with the order's view when it moved (`nil` when it did not):
    /// the API's accept in one round trip.
    func acceptWithView(orderID: UUID, driverID: UUID, grace: Duration) async throws -> OrderView? {
        do {
            return try await self.view(Prepared(StoreStatements.AcceptView.self, driverID, orderID, grace.seconds))
        } catch let error where PostgresErrors.isUniqueViolation(error) {
            throw FunctionsError.driverBusy(driverID)
        }
    }

    /// ``advance(orderID:driverID:from:to:)``, answered with the order's view when it moved.
    func advanceWithView(orderID: UUID, driverID: UUID, from: OrderStatus, to: OrderStatus) async throws
        -> OrderView?
    {
        guard from.canMove(to: to) else { throw FunctionsError.illegalTransition(from, to) }
        return try await self.view(
            Prepared(StoreStatements.AdvanceView.self, to.rawValue, orderID, driverID, from.rawValue)
        )
    }

    /// ``cancel(orderID:by:reason:)``, answered with the order's view when it was cancelled.
    func cancelWithView(orderID: UUID, by callerID: UUID, reason: String) async throws -> OrderView? {
        try await self.view(Prepared(StoreStatements.CancelView.self, reason, callerID, orderID))
    }

    public func moveOrder(id: UUID, from: OrderStatus, to: OrderStatus) async throws -> Bool {
        guard from.canMove(to: to) else { throw FunctionsError.illegalTransition(from, to) }
        return try await self.executor.count(
            Prepared(StoreStatements.Move.self, to.rawValue, id, from.rawValue),
            logger: self.logger
        ) > 0
    }

    public func setOrderSummary(orderID: UUID, summary: OrderSummary) async throws {
        try await self.executor.count(
            "UPDATE orders SET summary = \(try Self.json(summary))::jsonb WHERE id = \(orderID)",
            logger: self.logger
        )
    }

    public func startDispatchRound(orderID: UUID) async throws -> Int? {
        try await self.executor.row(Prepared(StoreStatements.StartDispatchRound.self, orderID), logger: self.logger) {
            try $0.decode(Int.self)
        }
    }

    public func cancelUnmatched(orderID: UUID) async throws -> Bool {
        try await self.executor.count(
            """
            UPDATE orders SET status = 'CANCELLED', cancellation_reason = \(OrderRow.noDriverFound)
            WHERE id = \(orderID) AND status = 'NEW' RETURNING id
            """,
            logger: self.logger
        ) > 0
    }
}
