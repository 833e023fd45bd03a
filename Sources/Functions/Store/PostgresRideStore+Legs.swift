import Foundation
import HyperTrackAPI
import Logging
import PostgresNIO

/// An order's legs: one per order and kind, each with its HyperTrack trip, marked for completion by the functions
/// that end a leg and completed by `completeTrip`.
extension PostgresRideStore {
    public func leg(orderID: UUID, kind: LegKind) async throws -> LegRecord? {
        try await self.legs(Prepared(StoreStatements.LegOfOrder.self, orderID, kind.rawValue)).first
    }

    public func overdueLegs(margin: Duration, recheck: Duration, limit: Int) async throws -> [LegRecord] {
        try await self.executor.documents(
            """
            WITH due AS (
                SELECT l.id FROM order_legs l JOIN orders o ON o.id = l.order_id
                WHERE (l.checked_at IS NULL OR l.checked_at < now() - make_interval(secs => \(recheck.seconds)))
                  AND (
                    (l.status = 'active' AND l.arrived_at IS NULL
                     AND ((l.leg = 'pickup' AND o.status = 'PICKING_UP') OR (l.leg = 'dropoff' AND o.status = 'DROPPING_OFF'))
                     AND coalesce(l.eta, l.created_at) < now() - make_interval(secs => \(margin.seconds))
                     AND NOT EXISTS (
                         SELECT 1 FROM webhook_events e
                         WHERE e.trip_id = l.trip_id AND e.received_at > now() - make_interval(secs => \(margin.seconds))))
                    OR (l.status = 'completed' AND l.distance IS NULL
                        AND l.completed_at < now() - make_interval(secs => \(margin.seconds))))
                ORDER BY l.created_at
                LIMIT \(limit)
                FOR UPDATE OF l SKIP LOCKED
            )
            UPDATE order_legs l SET checked_at = now() FROM due WHERE l.id = due.id
            RETURNING to_jsonb(l)::text
            """,
            as: LegRow.self,
            logger: self.logger
        ).map(LegRecord.init(row:))
    }

    public func leg(tripID: String) async throws -> LegRecord? {
        try await self.legs(Prepared(StoreStatements.LegsOfTrip.self, tripID)).first
    }

    public func legs(orderID: UUID) async throws -> [LegRecord] {
        try await self.legs(Prepared(StoreStatements.LegsOfOrder.self, orderID))
    }

    private func legs<Text: PreparedText>(_ statement: Prepared<Text>) async throws -> [LegRecord] {
        try await self.executor.documents(statement, as: LegRow.self, logger: self.logger).map(LegRecord.init(row:))
    }

    public func recordLeg(_ leg: NewLeg) async throws -> Bool {
        let estimate = leg.trip.estimate
        let route = try estimate.map { try Self.json($0.polyline.map { [$0.longitude, $0.latitude] }) }
        return try await self.executor.count(
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
        ) > 0
    }

    public func markLegsForCompletion(orderID: UUID, kinds: Set<LegKind>) async throws -> Int {
        try await self.executor.count(
            Prepared(StoreStatements.MarkLegsForCompletion.self, orderID, kinds.map(\.rawValue)),
            logger: self.logger
        )
    }

    public func markLegCompleted(id: UUID) async throws -> Bool {
        try await self.executor.count(
            Prepared(StoreStatements.MarkLegCompleted.self, id),
            logger: self.logger
        ) > 0
    }

    public func recordArrival(legID: UUID, at date: Date) async throws {
        try await self.executor.count(
            Prepared(StoreStatements.RecordArrival.self, date, legID),
            logger: self.logger
        )
    }

    public func recordLegSummary(legID: UUID, summary: LegSummary) async throws {
        try await self.executor.count(
            Prepared(
                StoreStatements.RecordLegSummary.self,
                summary.distance,
                summary.duration,
                try Self.json(summary.route),
                legID
            ),
            logger: self.logger
        )
    }
}
