import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import TriggerRuntime

extension APIStore {
    /// The order as JSON, built by the database in one query (legs and driver included).
    static let orderJSON = """
        jsonb_build_object(
            'id', o.id, 'status', o.status, 'rider_id', o.rider_id,
            'pickup', jsonb_build_object('lat', o.pickup_lat, 'lng', o.pickup_lng, 'address', o.pickup_address),
            'dropoff', jsonb_build_object('lat', o.dropoff_lat, 'lng', o.dropoff_lng, 'address', o.dropoff_address),
            'driver', CASE WHEN d.id IS NULL THEN NULL ELSE jsonb_build_object(
                'id', d.id, 'name', d.name, 'phone', d.phone,
                'car', jsonb_build_object('model', d.car_model, 'plate', d.car_plate)) END,
            'cancellation_reason', o.cancellation_reason, 'summary', o.summary,
            'created_at', o.created_at, 'updated_at', o.updated_at,
            'legs', coalesce((
                SELECT jsonb_agg(jsonb_build_object(
                    'leg', l.leg, 'status', l.status, 'trip_id', l.trip_id, 'share_url', l.share_url,
                    'embed_url', l.embed_url, 'eta', l.eta, 'route', l.estimate_route, 'arrived_at', l.arrived_at,
                    'distance', l.distance, 'duration', l.duration) ORDER BY l.leg DESC)
                FROM order_legs l WHERE l.order_id = o.id), '[]'::jsonb)
        )::text
        """

    static func decodeOrder(_ json: String) throws -> OrderView {
        try JSONDecoder.rowDecoder().decode(OrderView.self, from: Data(json.utf8))
    }

    func book(riderID: UUID, pickup: PlaceBody, dropoff: PlaceBody) async throws -> OrderView {
        let rows = try await self.client.query(
            """
            INSERT INTO orders (rider_id, pickup_lat, pickup_lng, pickup_address, dropoff_lat, dropoff_lng,
                                dropoff_address)
            VALUES (\(riderID), \(pickup.lat), \(pickup.lng), \(pickup.address), \(dropoff.lat), \(dropoff.lng),
                    \(dropoff.address))
            RETURNING id
            """,
            logger: self.logger
        )
        for try await id in rows.decode(UUID.self) {
            if let order = try await self.order(id: id, caller: Caller(id: riderID, role: .rider)) { return order }
        }
        throw APIProblem(.internalServerError, detail: "the order was not created")
    }

    /// The order if the caller may see it: its rider, its driver, or a driver it is offered to while NEW.
    func order(id: UUID, caller: Caller) async throws -> OrderView? {
        let rows = try await self.client.query(
            """
            SELECT \(unescaped: Self.orderJSON) FROM orders o LEFT JOIN users d ON d.id = o.driver_id
            WHERE o.id = \(id) AND (o.rider_id = \(caller.id) OR o.driver_id = \(caller.id) OR (o.status = 'NEW' AND
                EXISTS (SELECT 1 FROM order_offers f WHERE f.order_id = o.id AND f.driver_id = \(caller.id))))
            """,
            logger: self.logger
        )
        for try await json in rows.decode(String.self) { return try Self.decodeOrder(json) }
        return nil
    }

    /// The caller's orders (as rider, or as driver), newest first, after `cursor`.
    func orders(of caller: Caller, limit: Int, after cursor: OrderCursor?) async throws -> OrderPage {
        let column = caller.role == .rider ? "o.rider_id" : "o.driver_id"
        let rows = try await self.client.query(
            """
            SELECT \(unescaped: Self.orderJSON), (extract(epoch FROM o.created_at) * 1000000)::bigint
            FROM orders o LEFT JOIN users d ON d.id = o.driver_id
            WHERE \(unescaped: column) = \(caller.id)
              AND (\(cursor?.micros)::bigint IS NULL OR (o.created_at, o.id) <
                   ('epoch'::timestamptz + \(cursor?.micros)::bigint * interval '1 microsecond', \(cursor?.id)::uuid))
            ORDER BY o.created_at DESC, o.id DESC
            LIMIT \(limit + 1)
            """,
            logger: self.logger
        )
        var orders: [(OrderView, Int64)] = []
        for try await (json, micros) in rows.decode((String, Int64).self) {
            orders.append((try Self.decodeOrder(json), micros))
        }
        let page = orders.prefix(limit)
        let next = orders.count > limit ? page.last.map { OrderCursor(micros: $0.1, id: $0.0.id).description } : nil
        return OrderPage(orders: page.map(\.0), nextCursor: next)
    }

    /// NEW orders offered to the driver, newest offer first.
    func offers(driverID: UUID) async throws -> [OrderView] {
        let rows = try await self.client.query(
            """
            SELECT \(unescaped: Self.orderJSON)
            FROM order_offers f JOIN orders o ON o.id = f.order_id LEFT JOIN users d ON d.id = o.driver_id
            WHERE f.driver_id = \(driverID) AND o.status = 'NEW'
            ORDER BY f.offered_at DESC, o.id
            """,
            logger: self.logger
        )
        var orders: [OrderView] = []
        for try await json in rows.decode(String.self) { orders.append(try Self.decodeOrder(json)) }
        return orders
    }
}

/// A position in the caller's order list: `<created_at µs>_<order id>`.
struct OrderCursor: CustomStringConvertible, Equatable {
    var micros: Int64
    var id: UUID

    init(micros: Int64, id: UUID) {
        self.micros = micros
        self.id = id
    }

    init(parsing text: String) throws {
        let parts = text.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let micros = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else {
            throw APIProblem.validation("cursor", "is not a cursor this API returned")
        }
        self.init(micros: micros, id: id)
    }

    var description: String { "\(self.micros)_\(self.id.uuidString.lowercased())" }
}
