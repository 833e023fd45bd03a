import Foundation
import HyperTrackAPI
import Logging
import PostgresNIO
import TriggerRuntime

/// The one store of order operations on PostgreSQL: the state machine's writes (book, accept, advance, cancel,
/// move), offers, legs and driver positions, and the reads the API's views are built from.
///
/// It runs on whatever executes queries (``QueryExecutor``): the API gives it the pooled `PostgresClient`, a function
/// the delivery's open transaction (`PostgresConnection`), so the function's writes commit with its delivery. Every
/// write is one conditional statement where two writers could race: the first accept wins, a stale step changes
/// nothing. `FunctionsTesting` has the in-memory twin.
///
/// ```swift
/// let rides = PostgresRideStore(executor: client, logger: logger)             // the API
/// let store = PostgresRideStore(connection: transaction, logger: logger)      // a function
/// ```
public struct PostgresRideStore<Executor: QueryExecutor>: RideStore {
    let executor: Executor
    let logger: Logger

    /// Creates a store on an executor.
    /// - Parameters:
    ///   - executor: A pooled client, or a connection inside a transaction.
    ///   - logger: The request's or invocation's logger.
    public init(executor: Executor, logger: Logger) {
        self.executor = executor
        self.logger = logger
    }

    public func order(id: UUID) async throws -> OrderRow? {
        try await self.executor.documents(
            Prepared(StoreStatements.Order.self, id),
            as: OrderRow.self,
            logger: self.logger
        ).first
    }

    public func lockOrder(id: UUID) async throws -> OrderRow? {
        try await self.executor.documents(
            Prepared(StoreStatements.LockedOrder.self, id),
            as: OrderRow.self,
            logger: self.logger
        ).first
    }

    public func deviceID(ofDriver driverID: UUID) async throws -> String? {
        let deviceID = try await self.executor.row(
            Prepared(StoreStatements.DriverDevice.self, driverID),
            logger: self.logger
        ) { try $0.decode(String?.self) }
        return deviceID ?? nil
    }

    /// `least(…, now())`: a position dated in the future is recorded as of now (see the protocol).
    public func updateDriverPosition(
        deviceID: String,
        latitude: Double,
        longitude: Double,
        recordedAt: Date
    ) async throws -> Bool {
        try await self.executor.count(
            """
            INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
            SELECT id, \(latitude), \(longitude), least(\(recordedAt)::timestamptz, now())
            FROM users WHERE device_id = \(deviceID)
            ON CONFLICT (driver_id) DO UPDATE
                SET lat = excluded.lat, lng = excluded.lng, recorded_at = excluded.recorded_at, updated_at = now()
                WHERE driver_positions.recorded_at < excluded.recorded_at
            RETURNING driver_id
            """,
            logger: self.logger
        ) > 0
    }

    public func setDeviceStatus(deviceID: String, status: String, at date: Date) async throws -> Bool {
        guard ["active", "inactive", "disconnected"].contains(status) else { return false }
        return try await self.executor.count(
            """
            UPDATE users SET device_status = \(status), device_status_at = least(\(date)::timestamptz, now())
            WHERE device_id = \(deviceID)
              AND (device_status_at IS NULL OR device_status_at <= least(\(date)::timestamptz, now()))
            RETURNING id
            """,
            logger: self.logger
        ) > 0
    }

    public func nearestAvailableDrivers(
        near point: Coordinate,
        radius: Double,
        limit: Int,
        search: DriverSearch
    ) async throws -> [UUID] {
        try await self.nearbyDrivers(
            latitude: point.latitude,
            longitude: point.longitude,
            radius: radius,
            limit: limit,
            search: search
        ).map(\.driverID)
    }

    /// Dispatchable drivers within `radius` metres of a point, nearest first, with where they are and how far.
    func nearbyDrivers(
        latitude: Double,
        longitude: Double,
        radius: Double,
        limit: Int,
        search: DriverSearch = DriverSearch()
    ) async throws -> [(driverID: UUID, lat: Double, lng: Double, distance: Double)] {
        try await self.executor.rows(
            DriverSearchSQL.nearest(latitude: latitude, longitude: longitude, radius: radius, limit: limit, search: search),
            logger: self.logger
        ) { row in
            let (driverID, lat, lng, distance) = try row.decode((UUID, Double, Double, Double).self)
            return (driverID, lat, lng, distance)
        }
    }

    public func availableDrivers(deviceIDs: [String], search: DriverSearch) async throws -> [String: UUID] {
        let pairs = try await self.executor.rows(
            """
            SELECT u.device_id, u.id FROM users u
            WHERE \(unescaped: DriverSearchSQL.dispatchable("u")) AND u.device_id = ANY(\(deviceIDs))
              AND NOT EXISTS (
                  SELECT 1 FROM order_offers f WHERE f.order_id = \(search.excludingOffersOf) AND f.driver_id = u.id)
            """,
            logger: self.logger
        ) { try $0.decode((String, UUID).self) }
        return Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }

    public func webhookEvent(id: Int64) async throws -> WebhookEventRow? {
        try await self.executor.documents(
            "SELECT to_jsonb(e)::text FROM webhook_events e WHERE e.id = \(id)",
            as: WebhookEventRow.self,
            logger: self.logger
        ).first
    }

    public func setWebhookOutcome(eventID: Int64, outcome: String) async throws {
        try await self.executor.count(
            Prepared(StoreStatements.WebhookOutcome.self, outcome, eventID),
            logger: self.logger
        )
    }

    public func waitingWebhookEvents(tripID: String) async throws -> [(id: Int64, outcome: String)] {
        try await self.executor.rows(
            Prepared(StoreStatements.WaitingWebhookEvents.self, tripID, OnTripWebhook.waitingPrefix),
            logger: self.logger
        ) { row in
            let (id, outcome) = try row.decode((Int64, String).self)
            return (id: id, outcome: outcome)
        }
    }

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}

extension PostgresRideStore where Executor == PostgresConnection {
    /// Creates a store on one open connection, normally inside the delivery's transaction.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - logger: The invocation's logger.
    public init(connection: PostgresConnection, logger: Logger) {
        self.init(executor: connection, logger: logger)
    }
}
