import Foundation
import PostgresNIO

/// The statements the API runs for nearly every request, prepared once per pooled connection: PostgreSQL then skips
/// parsing and analysing them, and planning too once its plan cache settles on the generic plan (after five
/// executions, when it costs no more than the custom ones: true of these key lookups).
///
/// **Why.** In the 22nd session's 10-minute city (10,000 drivers, 20 bookings a second) planning was 26% of
/// PostgreSQL's CPU and parsing with analysis 11% (perf, 20 s of the rides), most of it for the unnamed statements
/// that every `query` sends. `pg_stat_statements` with `track_planning` ranked the access-token lookup first (10,572
/// plans a minute at 0.48 ms each: five seconds of planning a minute for a join that runs in 0.08 ms) and the
/// order view third (0.62 ms a plan, 0.28 ms to run). Other statements stay unnamed: each would need a type like
/// these, and none of the rest costs as much.
enum PreparedStatements {
    /// The caller a live session's access token belongs to: user id, role, session id.
    struct SessionCaller: PostgresPreparedStatement {
        static let name = "functions_session_caller_v1"
        static let sql = """
            SELECT u.id, u.role, s.id FROM auth_tokens t
            JOIN auth_sessions s ON s.id = t.session_id JOIN users u ON u.id = s.user_id
            WHERE t.token_hash = $1 AND t.kind = 'access' AND t.expires_at > now()
              AND s.revoked_at IS NULL AND s.expires_at > now()
            """
        typealias Row = (UUID, String, UUID)

        var tokenHash: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(self.tokenHash)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((UUID, String, UUID).self) }
    }

    /// An order's three documents (see ``orderViewColumns``) if `caller` may see it: its rider, its driver, or a
    /// driver it is offered to while `NEW`.
    struct OrderViewForCaller: PostgresPreparedStatement {
        static let name = "functions_order_view_for_caller_v1"
        static let sql = """
            SELECT \(orderViewColumns) FROM orders o LEFT JOIN users d ON d.id = o.driver_id
            WHERE o.id = $1 AND (o.rider_id = $2 OR o.driver_id = $2 OR (o.status = 'NEW' AND
                EXISTS (SELECT 1 FROM order_offers f WHERE f.order_id = o.id AND f.driver_id = $2)))
            """
        typealias Row = (String, String?, String)

        var order: UUID
        var caller: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.order)
            bindings.append(self.caller)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((String, String?, String).self) }
    }

    /// An order's three documents, whoever asks (the share page, which checked its token).
    struct OrderView: PostgresPreparedStatement {
        static let name = "functions_order_view_v1"
        static let sql = """
            SELECT \(orderViewColumns) FROM orders o LEFT JOIN users d ON d.id = o.driver_id WHERE o.id = $1
            """
        typealias Row = (String, String?, String)

        var order: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(self.order)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((String, String?, String).self) }
    }

    /// An order's three documents as text, in the order `PostgresRideStore` reads them (`o` the order, `d` its
    /// driver's user row): the order, the driver (or `NULL`), the legs pickup first.
    static let orderViewColumns = """
        to_jsonb(o)::text,
        CASE WHEN d.id IS NULL THEN NULL ELSE to_jsonb(d)::text END,
        coalesce((SELECT jsonb_agg(to_jsonb(l) ORDER BY l.leg DESC) FROM order_legs l WHERE l.order_id = o.id),
                 '[]'::jsonb)::text
        """
}
