import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// The queries of the order event log (`order_events`, written by the triggers of app migration 0016; positions in
/// `order_event_positions` since 0026): the sequencer that gives committed events their positions, the reads of the
/// streams, and the retention sweep.
public struct OrderEventLog: Sendable {
    /// The NOTIFY channel the triggers (an event was written) and the sequencer (events were sequenced) notify.
    public static let channel = "order_events"
    /// The most events one read or one sequencer pass takes.
    static let batch = 1000
    /// What the reads return of an event (`p`: its `order_event_positions` row, `e`: its `order_events` row), in
    /// ``event(of:)``'s order.
    private static let selected = "SELECT p.position, e.order_id, e.kind, e.rider_id, e.driver_id, e.payload::text"

    let client: PostgresClient
    let logger: Logger

    /// The log on a pooled client.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The log's ends: the last position handed out and the last position deleted by the retention sweep.
    public func ends() async throws -> (last: Int64, prunedThrough: Int64) {
        try await self.client.row(Prepared(Statements.Ends.self), logger: self.logger) {
            try $0.decode((Int64, Int64).self)
        } ?? (0, 0)
    }

    /// Gives committed events without a position (their ids in `order_event_queue`) the next positions, in the order
    /// they were written, and notifies the channel when it did (so other processes' streams read them). Sequencers
    /// run one at a time (the row lock of `order_event_sequencer`, taken first) and each commits before the next
    /// reads, so positions become visible in increasing order: a reader that saw position `p` never later sees a
    /// smaller one. An event is queued by its own transaction's commit, so the queue holds only committed events.
    ///
    /// One statement, `order_events_sequence()` (``M0035EventSequencerFunction``): it was seven round trips, each a
    /// wait for a core under load, on the path of every event a stream shows.
    /// - Returns: How many events it sequenced (at most ``batch``; call again while it returns that many).
    @discardableResult
    public func sequence() async throws -> Int {
        try await self.client.row(Prepared(Statements.Sequence.self), logger: self.logger) {
            try $0.decode(Int.self)
        } ?? 0
    }

    /// Declares hub `hub` awake for `duration` (or renews it): the writers skip their `NOTIFY` meanwhile
    /// (``M0036EventHubWakefulness``), and it no longer waits for the sequencer's (``M0037EventHubListening``).
    func declareAwake(hub: String, for duration: Duration) async throws {
        try await self.client.query(
            """
            WITH unlisted AS (DELETE FROM order_event_hubs_listening WHERE hub = \(hub))
            INSERT INTO order_event_hubs_awake (hub, until)
            VALUES (\(hub), clock_timestamp() + make_interval(secs => \(duration.seconds)::float8))
            ON CONFLICT (hub) DO UPDATE SET until = excluded.until
            """,
            logger: self.logger
        )
    }

    /// Registers hub `hub` as waiting for notifications for `duration` (or renews it): the sequencer notifies
    /// while an unexpired registration exists (``M0037EventHubListening``). The same statement withdraws the hub's
    /// declaration as awake, if any (the writers that start after it notify again; a hub asleep has none, and the
    /// deletion finds nothing), and deletes the registrations that expired a minute ago (hubs that died), so the
    /// sequencer's check reads a handful of rows however many API processes came and went.
    func listen(hub: String, for duration: Duration) async throws {
        try await self.client.query(
            """
            WITH expired AS (
                DELETE FROM order_event_hubs_listening
                WHERE until < clock_timestamp() - interval '1 minute' AND hub <> \(hub)),
            withdrawn AS (DELETE FROM order_event_hubs_awake WHERE hub = \(hub))
            INSERT INTO order_event_hubs_listening (hub, until)
            VALUES (\(hub), clock_timestamp() + make_interval(secs => \(duration.seconds)::float8))
            ON CONFLICT (hub) DO UPDATE SET until = excluded.until
            """,
            logger: self.logger
        )
    }

    /// Ends hub `hub`'s declaration and registration (it stops).
    func leave(hub: String) async throws {
        try await self.client.query(
            """
            WITH unlisted AS (DELETE FROM order_event_hubs_listening WHERE hub = \(hub))
            DELETE FROM order_event_hubs_awake WHERE hub = \(hub)
            """,
            logger: self.logger
        )
    }

    /// Every event after `position` (at most ``batch``), oldest first: what a process's hub fans out.
    public func events(after position: Int64) async throws -> [OrderEvent] {
        // Unnamed, so planned at each call with the position known. Prepared (37th session, run R1), 1,687 of its
        // 12,361 calls ran the cached generic plan, and the read took 2.7 ms on average (at most 353 ms) where it
        // took 0.45 ms planned each time (H1): 33 s of PostgreSQL's time against 5.
        try await self.client.rows(
            """
            \(unescaped: Self.selected)
            FROM order_event_positions p JOIN order_events e ON e.id = p.event_id
            WHERE p.position > \(position) ORDER BY p.position LIMIT \(Self.batch)
            """,
            logger: self.logger,
            Self.event(of:)
        )
    }

    /// The events a stream missed: after `after` and up to `through`, of the caller's orders (or of one order),
    /// oldest first, at most ``batch`` (call again from the last one's position while it returns that many).
    public func events(
        of scope: OrderEventScope,
        after: Int64,
        through: Int64
    ) async throws -> [OrderEvent] {
        let query: PostgresQuery
        switch scope {
        case .caller(let caller):
            query = """
                \(unescaped: Self.selected)
                FROM order_events e JOIN order_event_positions p ON p.event_id = e.id
                WHERE (e.rider_id = \(caller) OR e.driver_id = \(caller))
                  AND p.position > \(after) AND p.position <= \(through)
                ORDER BY p.position LIMIT \(Self.batch)
                """
        case .order(let order, _), .share(let order, _):
            query = """
                \(unescaped: Self.selected)
                FROM order_events e JOIN order_event_positions p ON p.event_id = e.id
                WHERE e.order_id = \(order) AND p.position > \(after) AND p.position <= \(through)
                ORDER BY p.position LIMIT \(Self.batch)
                """
        }
        return try await self.client.rows(query, logger: self.logger, Self.event(of:))
    }

    /// The log's statements of one row (or none), prepared once per connection (``Prepared``): sent unnamed,
    /// PostgreSQL planned each at every call (the sequencer's four statements 7,811 times each in 190 s of the 37th
    /// session's 4,000-ride city, H1, `pg_stat_statements`: 1.1 s). The plan is the same whatever the values. The
    /// hub's read after a position stays unnamed, and the sequencer's take of the queue is planned at each call
    /// inside its function: a generic plan made while the table was empty could keep reading it whole (the 26th
    /// session's lesson, runtime migration 0013; the hub's read, prepared, did so in run R1), and a plan made at
    /// each call reads only what is there.
    enum Statements {
        enum Ends: PreparedText {
            static let name = "functions_event_log_ends_v1"
            static let sql = "SELECT last_position, pruned_through FROM order_event_sequencer"
        }

        /// Sequences up to ``batch`` queued events in the statement's own transaction
        /// (``M0035EventSequencerFunction``).
        enum Sequence: PreparedText {
            static let name = "functions_event_log_sequence_v1"
            static let sql = "SELECT order_events_sequence()"
        }
    }

    private static func event(of row: PostgresRow) throws -> OrderEvent {
        let (position, order, kind, rider, driver, payload) = try row.decode(
            (Int64, UUID, String, UUID?, UUID?, String).self
        )
        guard let kind = OrderEventKind(rawValue: kind) else {
            throw FunctionsError.malformedRow("order event \(position) has an unknown kind \(kind)")
        }
        return OrderEvent(
            position: position,
            orderID: order,
            kind: kind,
            riderID: rider,
            driverID: driver,
            payload: payload
        )
    }
}
