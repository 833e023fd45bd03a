import Foundation
import Logging
import PostgresNIO

/// The API's reads and the feedback write, each keyed by the calling driver.
extension TripStore {
    /// The columns every trip view is built from, in ``view(_:)``'s order.
    static var viewColumns: String {
        """
        t.id, t.started_at, t.ended_at, t.distance, t.duration, t.start_lat, t.start_lng, t.start_address,
        t.end_lat, t.end_lng, t.end_address, t.order_id, t.drive_type, t.score, t.ratings::text, t.feedback
        """
    }

    /// The driver's trips, newest first, strictly after `cursor`: at most `limit`, each with its cursor.
    func trips(driverID: UUID, limit: Int, after cursor: TripCursor?) async throws -> [(TripView, TripCursor)] {
        try await self.executor.rows(
            """
            SELECT \(unescaped: Self.viewColumns), (extract(epoch FROM t.started_at) * 1000000)::bigint
            FROM driver_trips t
            WHERE t.driver_id = \(driverID)
              AND (\(cursor?.micros)::bigint IS NULL OR (t.started_at, t.id) <
                   ('epoch'::timestamptz + \(cursor?.micros)::bigint * interval '1 microsecond', \(cursor?.id)::uuid))
            ORDER BY t.started_at DESC, t.id DESC
            LIMIT \(limit)
            """,
            logger: self.logger
        ) { row in
            let view = try Self.view(row)
            let micros = try row.makeRandomAccess()[16].decode(Int64.self)
            return (view, TripCursor(micros: micros, id: view.id))
        }
    }

    /// One trip of the driver with its path and events, or `nil` when it is not theirs (or does not exist).
    func trip(id: UUID, driverID: UUID) async throws -> TripDetailView? {
        try await self.executor.row(
            """
            SELECT \(unescaped: Self.viewColumns), t.vehicle_type, t.point_count, t.path::text, t.events::text
            FROM driver_trips t WHERE t.id = \(id) AND t.driver_id = \(driverID)
            """,
            logger: self.logger
        ) { row in
            let trip = try Self.view(row)
            let cells = row.makeRandomAccess()
            let vehicle = try cells[16].decode(String.self)
            let count = try cells[17].decode(Int32.self)
            let path = try cells[18].decode(String.self)
            let events = try cells[19].decode(String.self)
            let decoder = TripJSON.decoder()
            return TripDetailView(
                trip: trip,
                path: try decoder.decode([TripPoint].self, from: Data(path.utf8)),
                info: .init(driveType: trip.driveType, vehicleType: vehicle, pointCount: Int(count)),
                events: try decoder.decode([DrivingEvent].self, from: Data(events.utf8))
            )
        }
    }

    /// Why feedback on a trip is refused, checked and written in one statement so two requests cannot both pass:
    /// the trip must be the driver's, without feedback, and have ended less than `window` ago (by the database's
    /// clock, the one that wrote `ended_at`).
    enum FeedbackOutcome: Equatable {
        case recorded
        case notFound
        case alreadyGiven(String)
        case tooOld
    }

    /// Records the driver's feedback on a trip, unless it is too old or already has feedback.
    func recordFeedback(tripID: UUID, driverID: UUID, kind: String, window: Duration) async throws -> FeedbackOutcome {
        let seconds = Double(window.components.seconds)
        let updated = try await self.executor.count(
            """
            UPDATE driver_trips SET feedback = \(kind), feedback_at = now()
            WHERE id = \(tripID) AND driver_id = \(driverID) AND feedback IS NULL
              AND ended_at > now() - \(seconds) * interval '1 second'
            RETURNING id
            """,
            logger: self.logger
        )
        if updated > 0 { return .recorded }
        let state = try await self.executor.row(
            "SELECT feedback FROM driver_trips WHERE id = \(tripID) AND driver_id = \(driverID)",
            logger: self.logger
        ) { row in try row.decode(String?.self) }
        switch state {
        case .none: return .notFound
        case .some(.some(let given)): return .alreadyGiven(given)
        case .some(.none): return .tooOld
        }
    }

    /// The driver's scored trips (score present, no feedback) that ended in the last `days` days: how many, and
    /// their average score.
    func programProgress(driverID: UUID, days: Int) async throws -> (count: Int, average: Double?) {
        try await self.executor.row(
            """
            SELECT count(*)::bigint, avg(score)::double precision FROM driver_trips
            WHERE driver_id = \(driverID) AND score IS NOT NULL AND feedback IS NULL
              AND ended_at > now() - \(days) * interval '1 day'
            """,
            logger: self.logger
        ) { row in
            let (count, average) = try row.decode((Int64, Double?).self)
            return (Int(count), average)
        } ?? (0, nil)
    }

    private static func view(_ row: PostgresRow) throws -> TripView {
        let c = try row.decode(
            (
                UUID, Date, Date, Double, Double, Double?, Double?, String?, Double?, Double?, String?, UUID?, String,
                Int32?, String, String?
            ).self
        )
        return TripView(
            id: c.0,
            startedAt: c.1,
            endedAt: c.2,
            distance: c.3,
            duration: c.4,
            start: Self.placeView(c.5, c.6, c.7),
            end: Self.placeView(c.8, c.9, c.10),
            orderID: c.11,
            driveType: c.12,
            score: c.13.map(Int.init),
            ratings: try TripJSON.decoder().decode([DrivingCategory: StarRating].self, from: Data(c.14.utf8)),
            feedback: c.15
        )
    }

    private static func placeView(_ lat: Double?, _ lng: Double?, _ address: String?) -> TripPlaceView? {
        guard let lat, let lng else { return nil }
        return TripPlaceView(lat: lat, lng: lng, address: address)
    }
}
