import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// The reads the API's order views are built from: the order row, its driver's user row and its leg rows, each
/// decoded once (``OrderRow``, ``UserRow``, ``LegRow``) and assembled by ``OrderView``.
extension PostgresRideStore {
    /// What the caller is to an order, for explaining a conditional write that changed nothing.
    struct Relation {
        var status: OrderStatus
        var isRider: Bool
        var isDriver: Bool
        var isOffered: Bool
        /// Offered, and the offer is neither declined nor expired.
        var offerIsOpen: Bool
        /// Offered and declined.
        var declined: Bool
    }

    /// An order's three documents, in the order ``view(of:)`` reads them (legs pickup first).
    private static var viewColumns: String { PreparedStatements.orderViewColumns }

    private static func view(of row: PostgresRow) throws -> OrderView {
        try self.view(of: try row.decode((String, String?, String).self))
    }

    private static func view(of documents: (order: String, driver: String?, legs: String)) throws -> OrderView {
        try self.view(order: documents.order, driver: documents.driver, legs: documents.legs)
    }

    private static func view(order: String, driver: String?, legs: String) throws -> OrderView {
        let decoder = JSONDecoder.rowDecoder()
        return try OrderView(
            order: try decoder.decode(OrderRow.self, from: Data(order.utf8)),
            driver: try driver.map { try decoder.decode(UserRow.self, from: Data($0.utf8)) },
            legs: try decoder.decode([LegRow].self, from: Data(legs.utf8))
        )
    }

    /// The view a statement selecting ``viewColumns`` returns (at most one row), if any.
    func view<Text: PreparedText>(_ statement: Prepared<Text>) async throws -> OrderView? {
        try await self.executor.rows(statement, logger: self.logger, Self.view(of:)).first
    }

    /// The order if the caller may see it: its rider, its driver, or a driver it is offered to while NEW.
    func orderView(id: UUID, visibleTo callerID: UUID) async throws -> OrderView? {
        let statement = PreparedStatements.OrderViewForCaller(order: id, caller: callerID)
        return try await self.executor.rows(statement, logger: self.logger).first.map(Self.view(of:))
    }

    /// The order whoever asks (the share page, which checked its token).
    func orderView(id: UUID) async throws -> OrderView? {
        let statement = PreparedStatements.OrderView(order: id)
        return try await self.executor.rows(statement, logger: self.logger).first.map(Self.view(of:))
    }

    /// The caller's orders (as rider, or as driver), newest first, after `cursor`: at most `limit` views, each with
    /// its position for the next cursor.
    func orderViews(
        of caller: Caller,
        limit: Int,
        after cursor: OrderCursor?
    ) async throws -> [(view: OrderView, position: OrderCursor)] {
        let column = caller.role == .rider ? "o.rider_id" : "o.driver_id"
        return try await self.executor.rows(
            """
            SELECT \(unescaped: Self.viewColumns), (extract(epoch FROM o.created_at) * 1000000)::bigint
            FROM orders o LEFT JOIN users d ON d.id = o.driver_id
            WHERE \(unescaped: column) = \(caller.id)
              AND (\(cursor?.micros)::bigint IS NULL OR (o.created_at, o.id) <
                   ('epoch'::timestamptz + \(cursor?.micros)::bigint * interval '1 microsecond', \(cursor?.id)::uuid))
            ORDER BY o.created_at DESC, o.id DESC
            LIMIT \(limit)
            """,
            logger: self.logger
        ) { row in
            let (order, driver, legs, micros) = try row.decode((String, String?, String, Int64).self)
            let view = try Self.view(order: order, driver: driver, legs: legs)
            return (view, OrderCursor(micros: micros, id: view.id))
        }
    }

    /// NEW orders offered to the driver whose offers are open (neither declined nor expired), newest offer first.
    func offeredOrders(driverID: UUID) async throws -> [OrderView] {
        try await self.executor.rows(
            """
            SELECT \(unescaped: Self.viewColumns)
            FROM order_offers f JOIN orders o ON o.id = f.order_id LEFT JOIN users d ON d.id = o.driver_id
            WHERE f.driver_id = \(driverID) AND o.status = 'NEW' AND f.declined_at IS NULL AND f.expires_at > now()
            ORDER BY f.offered_at DESC, o.id
            """,
            logger: self.logger,
            Self.view(of:)
        )
    }

    /// What the caller is to the order, or `nil` when it does not exist.
    func relation(orderID: UUID, callerID: UUID) async throws -> Relation? {
        try await self.executor.row(
            Prepared(StoreStatements.Relation.self, callerID, orderID),
            logger: self.logger
        ) { row -> Relation? in
            let (status, isRider, isDriver, isOffered, isOpen, declined) = try row.decode(
                (String, Bool, Bool, Bool, Bool, Bool).self
            )
            return OrderStatus(rawValue: status).map {
                Relation(
                    status: $0,
                    isRider: isRider,
                    isDriver: isDriver,
                    isOffered: isOffered,
                    offerIsOpen: isOpen,
                    declined: declined
                )
            }
        } ?? nil
    }
}
