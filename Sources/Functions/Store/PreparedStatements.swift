import Foundation
import PostgresNIO
import TriggerRuntime

/// The statements the API runs for nearly every request, prepared once per pooled connection: PostgreSQL then skips
/// parsing and analysing them, and planning too once its plan cache settles on the generic plan (after five
/// executions, when it costs no more than the custom ones: true of these key lookups).
///
/// **Why.** In the 22nd session's 10-minute city (10,000 drivers, 20 bookings a second) planning was 26% of
/// PostgreSQL's CPU and parsing with analysis 11% (perf, 20 s of the rides), most of it for the unnamed statements
/// that every `query` sends. `pg_stat_statements` with `track_planning` ranked the access-token lookup first (10,572
/// plans a minute at 0.48 ms each: five seconds of planning a minute for a join that runs in 0.08 ms) and the
/// order view third (0.62 ms a plan, 0.28 ms to run). The functions' hot statements followed in the 25th session,
/// as texts bound by one generic ``Prepared`` (``StoreStatements``); the rest stay unnamed.
enum PreparedStatements {
    /// What makes the token hashed as `$parameter` a live session's access token, as a `FROM` list and its `WHERE`:
    /// `t` the token, `s` its session, `u` its user. The one text of it, read by ``SessionCaller`` (the bearer
    /// middleware's lookup) and ``BookAndOfferWithToken`` (a booking that authenticates in its own statement).
    static func liveAccessToken(_ parameter: Int) -> String {
        """
        auth_tokens t JOIN auth_sessions s ON s.id = t.session_id JOIN users u ON u.id = s.user_id
        WHERE t.token_hash = $\(parameter) AND t.kind = 'access' AND t.expires_at > now()
          AND s.revoked_at IS NULL AND s.expires_at > now()
        """
    }

    /// The caller a live session's access token belongs to: user id, role, session id.
    struct SessionCaller: PostgresPreparedStatement {
        static let name = "functions_session_caller_v2"
        static let sql = "SELECT u.id, u.role, s.id FROM \(PreparedStatements.liveAccessToken(1))"
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
        static let name = "functions_order_view_for_caller_v2"
        /// A function whose statement keeps its generic plan (``M0033OrderViewPlans``: as a prepared statement the
        /// plan cache could settle on planning it at every call).
        static let sql = "SELECT order_document, driver_document, legs_document FROM order_view_documents($1, $2)"
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
        static let name = "functions_order_view_v2"
        static let sql = """
            SELECT order_document, driver_document, legs_document FROM order_view_documents($1, NULL::uuid)
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

    /// Books a ride for a rider whose profile is complete (a rider with a name), returning the new order's document;
    /// no row when the user is not such a rider (the store says why: ``PostgresRideStore/bookIfNamed(_:)``).
    ///
    /// **Why one statement.** `POST /v1/orders` took four round trips after its bearer lookup's: the profile read,
    /// the insert (unnamed, so planned at every call) and the order's view read back. A new order's view is its row,
    /// no driver, no legs: the insert's `RETURNING` is all of it, and the profile check is the insert's `WHERE`. In
    /// the 53rd session's alternated city runs (BENCHMARKS.md) the route's p99 fell from a median 155 to 109 ms and
    /// the booking's first hop (sent → order written, which waited for the profile read) was shorter in three pairs
    /// of four; the offer's p99 as a whole stayed within the machine's spread (its last hop is most of it).
    struct BookOrder: PostgresPreparedStatement {
        static let name = "functions_book_order_v1"
        static let sql = """
            INSERT INTO orders AS o (rider_id, pickup_lat, pickup_lng, pickup_address, dropoff_lat, dropoff_lng,
                                     dropoff_address)
            SELECT u.id, $2::float8, $3::float8, $4::text, $5::float8, $6::float8, $7::text
            FROM users u WHERE u.id = $1::uuid AND u.role = 'rider' AND u.name IS NOT NULL
            RETURNING to_jsonb(o)::text
            """
        typealias Row = String

        var order: NewOrder

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 7)
            bindings.appendNewOrder(self.order)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(String.self) }
    }

    /// ``BookOrder`` and its first dispatch round in one statement: the order inserted with `dispatch_round` 1, the
    /// nearest dispatchable drivers (``DriverSearchSQL/nearest(latitude:longitude:radius:limit:search:)``'s search
    /// around the pickup, `$8` metres, positions at most `$9` seconds old, `$10` drivers) offered it for `$11`
    /// seconds, ranked nearest first, and the round's two timers (``PostgresTimers/scheduleFunction``): the round
    /// timer (`$14`, key `$17`) when the offers expire, or after `$12` seconds when nobody was offered it, as
    /// ``Dispatcher/runRound(of:store:transaction:)`` sets it, and the window timer (`$15`, key `$18`) `$13` seconds
    /// after the booking, as ``Dispatcher/scheduleWindow(of:transaction:)`` does; both notify channel `$16`. Returns
    /// the order's document, how many drivers were offered it and whether it wrote each timer; no row when the user is
    /// not a rider with a name (nothing written, no search run, no timer). A timer function not installed makes the
    /// statement fail, writing nothing.
    ///
    /// **Why one statement.** The booking's transaction took six round trips before its commit as a sequence of
    /// the store's writes (`BEGIN`, the insert, the search, the offers, two timers): in the 57th session's first
    /// city run (V1, BENCHMARKS.md) its start → the offers' commit took p50 10, p99 134 ms in the API, against p50
    /// 11, p99 73 ms as `dispatchOrder`'s transaction in the worker, each of the API's awaits resuming behind its
    /// streams' work. v1 (the order, the search and the offers) left the timers to two statements after it: five
    /// round trips with `BEGIN` and `COMMIT`, the commit step alone p99 128 ms in the ten-minute city (R3). v2 is one.
    /// The offers' trigger (`order_events_on_offer`) reads the order: AFTER triggers run at the statement's end, when
    /// the order this statement inserted is visible to them (a test checks the event).
    struct BookAndOffer: PostgresPreparedStatement {
        static let name = "functions_book_and_offer_v2"
        static let sql = Self.text(rider: "users u WHERE u.id = $1::uuid")

        /// The statement with `rider` as the `FROM` list and `WHERE` that find the booking user `u` from `$1`.
        static func text(rider: String) -> String {
            """
            WITH o AS (
                INSERT INTO orders AS o (rider_id, pickup_lat, pickup_lng, pickup_address, dropoff_lat, dropoff_lng,
                                         dropoff_address, dispatch_round)
                SELECT u.id, $2::float8, $3::float8, $4::text, $5::float8, $6::float8, $7::text, 1
                FROM \(rider) AND u.role = 'rider' AND u.name IS NOT NULL
                RETURNING o.*
            ),
            drivers AS (
                SELECT n.driver_id, row_number() OVER (ORDER BY n.distance, n.driver_id) AS rank
                FROM nearest_dispatchable_drivers($2::float8, $3::float8, $8::float8, $9::float8, NULL::uuid,
                                                  $10::int) n
                WHERE EXISTS (SELECT 1 FROM o)
                  AND EXISTS (SELECT 1 FROM driver_positions p
                              WHERE p.recorded_at >= now() - make_interval(secs => $9::float8))
            ),
            offers AS (
                INSERT INTO order_offers (order_id, driver_id, rank, round, expires_at)
                SELECT o.id, d.driver_id, d.rank::int, 1, now() + make_interval(secs => $11::float8)
                FROM o, drivers d
                RETURNING driver_id
            ),
            timers AS (
                SELECT \(PostgresTimers.scheduleFunction)(
                           $14::text, o.id::text, $17::text, true,
                           now() + make_interval(
                               secs => CASE WHEN EXISTS (SELECT FROM offers) THEN $11::float8 ELSE $12::float8 END),
                           'null'::jsonb, $16::text) AS round,
                       \(PostgresTimers.scheduleFunction)(
                           $15::text, o.id::text, $18::text, false,
                           o.created_at + make_interval(secs => $13::float8), 'null'::jsonb, $16::text) AS window
                FROM o
            )
            SELECT to_jsonb(o)::text, (SELECT count(*) FROM offers)::int, t.round, t.window FROM o, timers t
            """
        }

        typealias Row = (document: String, offered: Int, roundTimer: Bool, windowTimer: Bool)

        var order: NewOrder
        var round: BookingRound

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 18)
            bindings.appendNewOrder(self.order)
            bindings.appendBookingRound(self.round)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((String, Int, Bool, Bool).self) }
    }

    /// ``BookAndOffer`` by the holder of a live session's access token (`$1`, its hash: ``liveAccessToken(_:)``),
    /// who must be a rider with a name: the API's booking authenticated by its own statement, one round trip where
    /// the bearer middleware's lookup and the booking were two. No row, nothing written, when the token is not a
    /// live session's or its user is not a rider with a name (the route then asks as the middleware does, for the
    /// 401, 403 or 409 it answered before, or books for a token issued before sign-in by code).
    ///
    /// **Why.** Through the ten-minute city (58th session) the booking's step from its request to its statement's
    /// start took p99 69-100 ms: the request, the lookup of its token and the booking's start, each await resuming
    /// behind the API's 10,000 streams. The 57th-58th sessions' fewer round trips in the booking cut its step to the
    /// offers' commit from p99 119-128 ms to 46-66. With this statement (59th session, five ten-minute runs
    /// alternated on a quieter machine) that first step took p50 1, p99 17-19 ms against p50 2, p99 22-31 ms, and the
    /// booking's route p50 4.8-5.2 ms against 5.4-6.8; the offer's p99 moved with the rest of its path (63 and 75 ms
    /// against 66-95).
    struct BookAndOfferWithToken: PostgresPreparedStatement {
        static let name = "functions_book_and_offer_with_token_v1"
        static let sql = BookAndOffer.text(rider: PreparedStatements.liveAccessToken(1))
        typealias Row = BookAndOffer.Row

        /// ``Tokens/hash(_:)`` of the bearer token.
        var tokenHash: String
        var pickup: OrderRow.Place
        var dropoff: OrderRow.Place
        var round: BookingRound

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 18)
            bindings.append(self.tokenHash)
            bindings.appendPlaces(pickup: self.pickup, dropoff: self.dropoff)
            bindings.appendBookingRound(self.round)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((String, Int, Bool, Bool).self) }
    }

    /// A user's profile by id `$1` (`GET /v1/me`): planned at each of its 3,942 calls in 190 s of
    /// the 37th session's H1 city when sent unnamed.
    enum User: PreparedText {
        static let name = "functions_user_v1"
        static let sql = "SELECT \(PreparedStatements.userColumns) FROM users WHERE id = $1"
    }

    /// A user's profile as columns of `users`, in the order ``UserView/init(profileRow:)`` reads them: what ``User``
    /// selects and a profile update returns.
    static let userColumns = "id, role, name, phone, device_id, car_model, car_plate, available"

    /// An order's three documents as text, in the order `PostgresRideStore` reads them (`o` the order, `d` its
    /// driver's user row): the order, the driver (or `NULL`), the legs pickup first. `order_view_documents`
    /// (``M0033OrderViewPlans``) selects the same.
    static let orderViewColumns = """
        to_jsonb(o)::text,
        CASE WHEN d.id IS NULL THEN NULL ELSE to_jsonb(d)::text END,
        coalesce((SELECT jsonb_agg(to_jsonb(l) ORDER BY l.leg DESC) FROM order_legs l WHERE l.order_id = o.id),
                 '[]'::jsonb)::text
        """
}

/// The text of a statement the stores run on a function's hot path, prepared once per connection through
/// ``Prepared``: a caseless enum per statement, its parameters bound at each call.
///
/// **Why.** A function's statements went unnamed, and PostgreSQL planned each at every call. Read live from the 25th
/// session's 4,000-ride city (`pg_stat_statements` with `track_planning`, 180 s of the rides), the
/// statements below planned about 17 s (PostgreSQL ran for 231 s in all), some far longer than they ran: a completed
/// leg's context 0.85 ms of planning against 0.08 ms of running, the waiting orders near a driver 2.9 ms against 1.5
/// ms. Prepared, PostgreSQL parses and analyses each once per connection and, once its plan cache settles on the
/// generic plan (these are key lookups and conditional writes by key), plans it once too.
protocol PreparedText {
    /// Unique per text: postgres-nio knows a connection's prepared statements by name, so a changed text needs a new
    /// name (a version suffix).
    static var name: String { get }
    static var sql: String { get }
}

/// A ``PreparedText`` with its parameters; its rows come back as they are, for the store to decode as it decodes an
/// unnamed statement's.
///
/// The parameters' types are those of the first call's values (postgres-nio's inference when a statement declares
/// none), so they are non-optional: a `NULL` would leave its type to the server's guess for every later call.
struct Prepared<Text: PreparedText>: PostgresPreparedStatement {
    static var name: String { Text.name }
    static var sql: String { Text.sql }
    typealias Row = PostgresRow

    private let bindings: PostgresBindings

    init<each Value: PostgresDynamicTypeEncodable>(_ text: Text.Type, _ values: repeat each Value) {
        var bindings = PostgresBindings()
        repeat bindings.append(each values)
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { self.bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresBindings {
    /// A new order's rider, pickup and dropoff as `$1`-`$7`, as ``PreparedStatements/BookOrder`` and
    /// ``PreparedStatements/BookAndOffer`` read them (``PreparedStatements/BookAndOfferWithToken`` binds a token's
    /// hash as `$1`).
    fileprivate mutating func appendNewOrder(_ order: NewOrder) {
        self.append(order.riderID)
        self.appendPlaces(pickup: order.pickup, dropoff: order.dropoff)
    }

    /// A booking's pickup and dropoff as `$2`-`$7`.
    fileprivate mutating func appendPlaces(pickup: OrderRow.Place, dropoff: OrderRow.Place) {
        self.append(pickup.latitude)
        self.append(pickup.longitude)
        self.append(pickup.address)
        self.append(dropoff.latitude)
        self.append(dropoff.longitude)
        self.append(dropoff.address)
    }

    /// The first round's settings, timers and channel as `$8`-`$18` of ``PreparedStatements/BookAndOffer`` and
    /// ``PreparedStatements/BookAndOfferWithToken``.
    fileprivate mutating func appendBookingRound(_ round: BookingRound) {
        let settings = round.settings
        self.append(settings.radius(ofRound: 1))
        self.append(settings.maxPositionAge.seconds)
        self.append(settings.offerCount)
        self.append(settings.offerTTL.seconds)
        self.append(settings.delay(afterEmptyRounds: 1).seconds)
        self.append(settings.window.seconds)
        self.append(DispatchRound.name.rawValue)
        self.append(DispatchWindow.name.rawValue)
        self.append(round.channel)
        self.append(Dispatcher.roundKey)
        self.append(Dispatcher.windowKey)
    }
}
