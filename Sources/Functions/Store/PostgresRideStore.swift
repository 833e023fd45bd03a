import Foundation
import HyperTrackAPI
import Logging
import PostgresNIO
import TriggerRuntime

/// `RideStore` on one open connection: the delivery's transaction, so writes commit with the delivery.
public struct PostgresRideStore: RideStore {
    private let connection: PostgresConnection
    private let logger: Logger

    /// Creates a store on a connection.
    /// - Parameters:
    ///   - connection: A connection, normally inside the delivery's transaction.
    ///   - logger: The invocation's logger.
    public init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    public func order(id: UUID) async throws -> OrderRow? {
        let rows = try await self.connection.query(
            "SELECT to_jsonb(o)::text FROM orders o WHERE o.id = \(id)",
            logger: self.logger
        )
        for try await json in rows.decode(String.self) {
            return try JSONDecoder.rowDecoder().decode(OrderRow.self, from: Data(json.utf8))
        }
        return nil
    }

    public func lockOrder(id: UUID) async throws -> OrderRow? {
        let rows = try await self.connection.query(
            "SELECT to_jsonb(o)::text FROM orders o WHERE o.id = \(id) FOR UPDATE",
            logger: self.logger
        )
        for try await json in rows.decode(String.self) {
            return try JSONDecoder.rowDecoder().decode(OrderRow.self, from: Data(json.utf8))
        }
        return nil
    }

    public func deviceID(ofDriver driverID: UUID) async throws -> String? {
        let rows = try await self.connection.query(
            "SELECT device_id FROM users WHERE id = \(driverID) AND role = 'driver'",
            logger: self.logger
        )
        for try await deviceID in rows.decode(String?.self) { return deviceID }
        return nil
    }

    public func leg(orderID: UUID, kind: LegKind) async throws -> LegRecord? {
        try await self.legs(where: "order_id = \(orderID) AND leg = \(kind.rawValue)").first
    }

    public func leg(tripID: String) async throws -> LegRecord? {
        try await self.legs(where: "trip_id = \(tripID)").first
    }

    public func legs(orderID: UUID) async throws -> [LegRecord] {
        try await self.legs(where: "order_id = \(orderID)")
    }

    private func legs(where condition: PostgresQuery) async throws -> [LegRecord] {
        // The prefix binds nothing, so the condition's placeholders ($1, …) stay valid after it.
        var query = condition
        query.sql =
            "SELECT id, order_id, leg, device_id, trip_id, status, distance, duration, route::text"
            + " FROM order_legs WHERE " + condition.sql + " ORDER BY created_at"
        var legs: [LegRecord] = []
        let rows = try await self.connection.query(query, logger: self.logger)
        for try await (id, orderID, leg, deviceID, tripID, status, distance, duration, route) in rows.decode(
            (UUID, UUID, String, String, String, String, Double?, Double?, String?).self
        ) {
            var summary: LegSummary?
            if let distance, let duration {
                let points = try route.map { try JSONDecoder().decode([[Double]].self, from: Data($0.utf8)) } ?? []
                summary = LegSummary(distance: distance, duration: duration, route: points)
            }
            legs.append(
                LegRecord(
                    id: id,
                    orderID: orderID,
                    kind: LegKind(rawValue: leg) ?? .pickup,
                    deviceID: deviceID,
                    tripID: tripID,
                    status: LegStatus(rawValue: status) ?? .active,
                    summary: summary
                )
            )
        }
        return legs
    }

    public func recordLeg(_ leg: NewLeg) async throws -> Bool {
        let estimate = leg.trip.estimate
        let route = try estimate.map { try Self.json($0.polyline.map { [$0.longitude, $0.latitude] }) }
        let rows = try await self.connection.query(
            """
            INSERT INTO order_legs (order_id, leg, device_id, trip_id, share_url, embed_url, eta,
                                    estimate_distance, estimate_duration, estimate_route)
            VALUES (\(leg.orderID), \(leg.kind.rawValue), \(leg.trip.deviceID), \(leg.trip.tripID),
                    \(leg.trip.views?.shareURL), \(leg.trip.views?.embedURL), \(estimate?.arriveAt),
                    \(estimate?.distance), \(estimate?.duration), \(route)::jsonb)
            ON CONFLICT (order_id, leg) DO NOTHING
            RETURNING id
            """,
            logger: self.logger
        )
        return try await Self.count(rows) > 0
    }

    public func moveOrder(id: UUID, from: OrderStatus, to: OrderStatus) async throws -> Bool {
        guard from.canMove(to: to) else { throw FunctionsError.illegalTransition(from, to) }
        let rows = try await self.connection.query(
            "UPDATE orders SET status = \(to.rawValue) WHERE id = \(id) AND status = \(from.rawValue) RETURNING id",
            logger: self.logger
        )
        return try await Self.count(rows) > 0
    }

    public func markLegsForCompletion(orderID: UUID, kinds: Set<LegKind>) async throws -> Int {
        let rows = try await self.connection.query(
            """
            UPDATE order_legs SET status = 'completing', completion_requested_at = now()
            WHERE order_id = \(orderID) AND status = 'active' AND leg = ANY(\(kinds.map(\.rawValue)))
            RETURNING id
            """,
            logger: self.logger
        )
        return try await Self.count(rows)
    }

    public func markLegCompleted(id: UUID) async throws -> Bool {
        let rows = try await self.connection.query(
            """
            UPDATE order_legs SET status = 'completed', completed_at = coalesce(completed_at, now())
            WHERE id = \(id) AND status = 'completing' RETURNING id
            """,
            logger: self.logger
        )
        return try await Self.count(rows) > 0
    }

    public func recordArrival(legID: UUID, at date: Date) async throws {
        try await self.connection.query(
            "UPDATE order_legs SET arrived_at = \(date) WHERE id = \(legID) AND arrived_at IS NULL",
            logger: self.logger
        )
    }

    public func recordLegSummary(legID: UUID, summary: LegSummary) async throws {
        try await self.connection.query(
            """
            UPDATE order_legs SET distance = \(summary.distance), duration = \(summary.duration),
                route = \(try Self.json(summary.route))::jsonb, status = 'completed',
                completed_at = coalesce(completed_at, now())
            WHERE id = \(legID)
            """,
            logger: self.logger
        )
    }

    public func setOrderSummary(orderID: UUID, summary: OrderSummary) async throws {
        try await self.connection.query(
            "UPDATE orders SET summary = \(try Self.json(summary))::jsonb WHERE id = \(orderID)",
            logger: self.logger
        )
    }

    public func updateDriverPosition(
        deviceID: String,
        latitude: Double,
        longitude: Double,
        recordedAt: Date
    ) async throws -> Bool {
        let rows = try await self.connection.query(
            """
            INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
            SELECT id, \(latitude), \(longitude), \(recordedAt) FROM users WHERE device_id = \(deviceID)
            ON CONFLICT (driver_id) DO UPDATE
                SET lat = excluded.lat, lng = excluded.lng, recorded_at = excluded.recorded_at, updated_at = now()
                WHERE driver_positions.recorded_at < excluded.recorded_at
            RETURNING driver_id
            """,
            logger: self.logger
        )
        return try await Self.count(rows) > 0
    }

    public func nearestAvailableDrivers(near point: Coordinate, radius: Double, limit: Int) async throws -> [UUID] {
        let rows = try await self.connection.query(
            DriverSearchSQL.nearest(latitude: point.latitude, longitude: point.longitude, radius: radius, limit: limit),
            logger: self.logger
        )
        var drivers: [UUID] = []
        for try await (driverID, _, _, _) in rows.decode((UUID, Double, Double, Double).self) {
            drivers.append(driverID)
        }
        return drivers
    }

    public func availableDrivers(deviceIDs: [String]) async throws -> [String: UUID] {
        let rows = try await self.connection.query(
            """
            SELECT u.device_id, u.id FROM users u
            WHERE u.role = 'driver' AND u.available AND u.device_id = ANY(\(deviceIDs))
              AND NOT EXISTS (
                  SELECT 1 FROM orders o
                  WHERE o.driver_id = u.id AND o.status NOT IN ('NEW', 'COMPLETED', 'CANCELLED')
              )
            """,
            logger: self.logger
        )
        var drivers: [String: UUID] = [:]
        for try await (deviceID, driverID) in rows.decode((String, UUID).self) { drivers[deviceID] = driverID }
        return drivers
    }

    public func recordOffers(orderID: UUID, driverIDs: [UUID]) async throws {
        try await self.connection.query(
            """
            INSERT INTO order_offers (order_id, driver_id, rank)
            SELECT \(orderID), driver, rank::int FROM unnest(\(driverIDs)::uuid[]) WITH ORDINALITY AS t(driver, rank)
            ON CONFLICT (order_id, driver_id) DO NOTHING
            """,
            logger: self.logger
        )
    }

    public func setWebhookOutcome(eventID: Int64, outcome: String) async throws {
        try await self.connection.query(
            "UPDATE webhook_events SET outcome = \(outcome), processed_at = now() WHERE id = \(eventID)",
            logger: self.logger
        )
    }

    private static func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }

    private static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}
