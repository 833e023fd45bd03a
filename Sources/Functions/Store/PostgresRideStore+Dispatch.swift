import Foundation
import Logging
import PostgresNIO

/// Dispatch's offers (with a lifetime, declined, still open) and the orders waiting near a driver who comes online;
/// its writes of `orders` (the round counter, the no-driver cancellation) are with the other order writes.
extension PostgresRideStore {
    public func recordOffers(orderID: UUID, driverIDs: [UUID], round: Int?, ttl: Duration) async throws {
        // Rounds are numbered from 1, so 0 stands for none (a prepared statement's parameters are never NULL).
        try await self.executor.count(
            Prepared(StoreStatements.RecordOffers.self, orderID, driverIDs, round ?? 0, ttl.seconds),
            logger: self.logger
        )
    }

    public func openOffersExpiry(orderID: UUID) async throws -> Date? {
        try await self.executor.row(
            """
            SELECT max(expires_at) FROM order_offers
            WHERE order_id = \(orderID) AND declined_at IS NULL AND expires_at > now()
            """,
            logger: self.logger
        ) { try $0.decode(Date?.self) } ?? nil
    }

    public func lastOfferedRound(orderID: UUID) async throws -> Int {
        try await self.executor.row(
            "SELECT coalesce(max(round), 0)::int FROM order_offers WHERE order_id = \(orderID)",
            logger: self.logger
        ) { try $0.decode(Int.self) } ?? 0
    }

    public func waitingOrders(forDriver driverID: UUID, radius: Double, limit: Int, search: DriverSearch)
        async throws -> [UUID]
    {
        try await self.executor.rows(
            Prepared(StoreStatements.WaitingOrders.self, radius, driverID, search.maxPositionAge.seconds, limit),
            logger: self.logger
        ) { try $0.decode(UUID.self) }
    }

    /// Marks the driver's open offer of a `NEW` order declined; returns whether it did.
    func decline(orderID: UUID, driverID: UUID) async throws -> Bool {
        try await self.executor.count(
            """
            UPDATE order_offers f SET declined_at = now()
            FROM orders o
            WHERE f.order_id = \(orderID) AND f.driver_id = \(driverID) AND o.id = f.order_id AND o.status = 'NEW'
              AND f.declined_at IS NULL AND f.expires_at > now()
            RETURNING f.order_id
            """,
            logger: self.logger
        ) > 0
    }
}
