import Foundation
import Logging
import PostgresNIO

/// The trips' queries, on the pooled client (the API) or on a delivery's transaction (`analyzeTrip`).
///
/// Every read is keyed by the caller's driver id, so a driver reads only their own trips.
struct TripStore<Executor: QueryExecutor>: Sendable {
    let executor: Executor
    let logger: Logger

    /// What `analyzeTrip` needs of a completed leg: its driver, its time span and its order's places.
    struct LegContext: Sendable {
        var legID: UUID
        var orderID: UUID
        var kind: LegKind
        var deviceID: String
        var driverID: UUID
        var startedAt: Date
        var endedAt: Date
        var summaryDistance: Double?
        var pickup: OrderRow.Place?
        var dropoff: OrderRow.Place?
    }

    /// The completed leg `id` with its driver (the user bound to its device), or `nil` when the leg or the driver is
    /// unknown. The drive ends when its completion was requested (the driver's action), not when HyperTrack
    /// confirmed it.
    func legContext(id: UUID) async throws -> LegContext? {
        try await self.executor.row(
            Prepared(StoreStatements.LegContext.self, id),
            logger: self.logger
        ) { row in
            let c = try row.decode(
                (
                    UUID, UUID, String, String, UUID, Date, Date, Double?, Double?, Double?, String?, Double?, Double?,
                    String?
                ).self
            )
            return LegContext(
                legID: c.0,
                orderID: c.1,
                kind: LegKind(rawValue: c.2) ?? .dropoff,
                deviceID: c.3,
                driverID: c.4,
                startedAt: c.5,
                endedAt: c.6,
                summaryDistance: c.7,
                pickup: Self.place(c.8, c.9, c.10),
                dropoff: Self.place(c.11, c.12, c.13)
            )
        }
    }

    private static func place(_ latitude: Double?, _ longitude: Double?, _ address: String?) -> OrderRow.Place? {
        guard let latitude, let longitude else { return nil }
        return OrderRow.Place(latitude: latitude, longitude: longitude, address: address)
    }

    /// The locations the device reported while the leg ran: the inbox's `location` events received in the span
    /// (received, not recorded: the device's clock may differ from ours), sorted by the device's time. Speed and
    /// bearing are read from the event as sent, and only when they are numbers.
    /// Whether a webhook delivery received by `instant` is waiting to be applied (``M0031WebhookReceipts``).
    func webhooksWaiting(receivedBy instant: Date) async throws -> Bool {
        try await self.executor.rows(
            """
            SELECT EXISTS (SELECT 1 FROM \(unescaped: M0031WebhookReceipts.receipts) WHERE received_at <= \(instant))
            """,
            logger: self.logger
        ) { try $0.decode(Bool.self) }.first ?? false
    }

    func locations(deviceID: String, from start: Date, to end: Date) async throws -> [TripPoint] {
        try await self.executor.rows(
            Prepared(StoreStatements.TripLocations.self, deviceID, start, end),
            logger: self.logger
        ) { row in
            let (time, latitude, longitude, speed, bearing, limit) = try row.decode(
                (Date, Double, Double, Double?, Double?, Double?).self
            )
            // A limit outside what any road posts is not believed (the configured default applies there).
            return TripPoint(
                time: time,
                latitude: latitude,
                longitude: longitude,
                speed: speed,
                bearing: bearing,
                postedLimit: limit.flatMap { (5...300).contains($0) ? $0 : nil }
            )
        }
    }

    /// Stores a leg's trip; a leg that already has one keeps it (a retried or replayed delivery changes nothing).
    /// - Returns: Whether this call stored it.
    @discardableResult
    func insert(_ trip: NewDriverTrip) async throws -> Bool {
        let encoder = TripJSON.encoder()
        let ratings = String(decoding: try encoder.encode(trip.analysis.rating.ratings), as: UTF8.self)
        let events = String(decoding: try encoder.encode(trip.analysis.events), as: UTF8.self)
        let path = String(decoding: try encoder.encode(trip.analysis.path), as: UTF8.self)
        return try await self.executor.count(
            """
            INSERT INTO driver_trips (driver_id, leg_id, order_id, drive_type, vehicle_type, started_at, ended_at,
                                      distance, duration, start_lat, start_lng, start_address, end_lat, end_lng,
                                      end_address, point_count, score, ratings, events, path)
            VALUES (\(trip.driverID), \(trip.legID), \(trip.orderID), \(trip.driveType), 'car', \(trip.startedAt),
                    \(trip.endedAt), \(trip.distance), \(trip.endedAt.timeIntervalSince(trip.startedAt)),
                    \(trip.start?.latitude), \(trip.start?.longitude), \(trip.start?.address), \(trip.end?.latitude),
                    \(trip.end?.longitude), \(trip.end?.address), \(trip.analysis.pointCount),
                    \(trip.analysis.rating.score), \(ratings)::jsonb, \(events)::jsonb, \(path)::jsonb)
            ON CONFLICT (leg_id) DO NOTHING
            RETURNING id
            """,
            logger: self.logger
        ) > 0
    }
}

/// A trip to store.
struct NewDriverTrip: Sendable {
    var driverID: UUID
    var legID: UUID?
    var orderID: UUID?
    var driveType: String
    var startedAt: Date
    var endedAt: Date
    var distance: Double
    var start: OrderRow.Place?
    var end: OrderRow.Place?
    var analysis: TripAnalysis
}

/// How trips' JSON columns are written and read: ISO 8601 times.
enum TripJSON {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
