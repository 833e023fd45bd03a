import Crypto
import Foundation
import PostgresNIO

/// Share links: one public link per order, stored as the SHA-256 of its token.
extension APIStore {
    /// A new share link for the rider's order (a previous link of the order stops working).
    /// - Returns: The token and when the link expires (`nil` while the ride is on).
    func share(orderID: UUID, rider: Caller, ttl: Duration) async throws -> (token: String, expiresAt: Date?) {
        let token = ShareTokens.make()
        let expiry = try await self.client.row(
            """
            WITH shared AS (
                INSERT INTO order_shares (order_id, token_hash)
                SELECT id, \(ShareTokens.hash(token)) FROM orders
                WHERE id = \(orderID) AND rider_id = \(rider.id)
                  AND (coalesce(completed_at, cancelled_at) IS NULL
                       OR coalesce(completed_at, cancelled_at) + make_interval(secs => \(ttl.seconds)) > now())
                ON CONFLICT (order_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = now()
                RETURNING order_id)
            SELECT coalesce(o.completed_at, o.cancelled_at) + make_interval(secs => \(ttl.seconds))
            FROM shared JOIN orders o ON o.id = shared.order_id
            """,
            logger: self.logger
        ) { try $0.decode(Date?.self) }
        guard let expiry else {
            try await self.requireRider(orderID: orderID, rider: rider)
            throw APIProblem.conflict("order \(orderID) ended too long ago to be shared")
        }
        return (token, expiry)
    }

    /// Revokes the order's share link; `false` when it had none.
    func revokeShare(orderID: UUID, rider: Caller) async throws -> Bool {
        try await self.requireRider(orderID: orderID, rider: rider)
        return try await self.client.count(
            "DELETE FROM order_shares WHERE order_id = \(orderID) RETURNING order_id",
            logger: self.logger
        ) > 0
    }

    /// The order a share token shows, if the link exists and has not expired.
    func sharedOrder(token: String, ttl: Duration) async throws -> UUID? {
        try await self.client.row(
            """
            SELECT s.order_id FROM order_shares s JOIN orders o ON o.id = s.order_id
            WHERE s.token_hash = \(ShareTokens.hash(token))
              AND (coalesce(o.completed_at, o.cancelled_at) IS NULL
                   OR coalesce(o.completed_at, o.cancelled_at) + make_interval(secs => \(ttl.seconds)) > now())
            """,
            logger: self.logger
        ) { try $0.decode(UUID.self) }
    }

    /// What the share page shows now, and the driver's last position while the ride is on.
    func shareSnapshot(orderID: UUID) async throws -> (view: ShareView, position: SharePosition?)? {
        guard let order = try await self.rides.orderView(id: orderID) else { return nil }
        var position: SharePosition?
        if let driver = order.driver, !order.status.isFinal, order.status != .new {
            position = try await self.client.row(
                "SELECT lat, lng, recorded_at FROM driver_positions WHERE driver_id = \(driver.id)",
                logger: self.logger
            ) { row in
                let (lat, lng, at) = try row.decode((Double, Double, Date).self)
                return SharePosition(orderID: orderID, lat: lat, lng: lng, recordedAt: at)
            }
        }
        return (ShareView(order: order), position)
    }

    /// 404 unless the caller is the order's rider (403 for its driver).
    private func requireRider(orderID: UUID, rider: Caller) async throws {
        let relation = try await self.rides.relation(orderID: orderID, callerID: rider.id)
        guard let relation, relation.isRider || relation.isDriver || relation.isOffered else {
            throw APIProblem.notFound("order \(orderID) does not exist")
        }
        guard relation.isRider else { throw APIProblem.forbidden("only the order's rider can share it") }
    }
}

/// The driver's position as the share stream sends it.
struct SharePosition: Encodable, Sendable {
    var orderID: UUID
    var lat: Double
    var lng: Double
    var recordedAt: Date

    enum CodingKeys: String, CodingKey {
        case lat, lng
        case orderID = "order_id"
        case recordedAt = "recorded_at"
    }
}

/// Share tokens: 32 random bytes, base64url, prefixed `sh_`; stored as their SHA-256.
public enum ShareTokens {
    /// A new token.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "sh_"
            + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The stored form of a token.
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `text` has a token's shape (so other paths are 404 without a query).
    static func isWellFormed(_ text: String) -> Bool {
        text.count == 46 && text.hasPrefix("sh_")
            && text.dropFirst(3).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
