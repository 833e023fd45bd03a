import EmbeddedPostgres
import Foundation
import PostgresNIO
import Testing

@testable import Functions

/// The intake's position upsert (``WebhookStatements/Positions``) as PostgreSQL runs it on a city's worth of drivers.
@Suite("Functions: the intake's position statement's plan", .timeLimit(.minutes(10)))
struct WebhookStatementPlanTests {
    static let logger = BackendHarness.logger

    /// Every node of an `EXPLAIN (FORMAT JSON)` plan (its plans and subplans, init plans and CTEs included), each
    /// as its JSON object.
    static func planNodes(_ node: Any) -> [[String: Any]] {
        if let array = node as? [Any] { return array.flatMap(Self.planNodes) }
        guard let object = node as? [String: Any] else { return [] }
        let children = object.filter { $0.key == "Plan" || $0.key == "Plans" }.values.flatMap(Self.planNodes)
        return (object["Node Type"] == nil ? [] : [object]) + children
    }

    /// Every node's "Rows Removed by Join Filter" in an `EXPLAIN (ANALYZE, FORMAT JSON)` plan, added up.
    static func rowsRemovedByJoinFilters(_ node: Any) -> Int {
        Self.planNodes(node).reduce(0) { $0 + ($1["Rows Removed by Join Filter"] as? Int ?? 0) }
    }

    /// A `WITH d` that signs up drivers `PLAN-1` … `PLAN-10000` (their ids in `d`), for an insert to follow.
    static let tenThousandDrivers = """
        WITH d AS (
            INSERT INTO users (role, name, phone, device_id, car_model, car_plate, available)
            SELECT 'driver', 'Dana ' || i, '+4930' || lpad(i::text, 7, '0'), 'PLAN-' || i, 'Prius', 'B-RS 1', true
            FROM generate_series(1, 10000) AS i
            RETURNING id)

        """

    /// Every node that reads a relation, with the rows it returned per loop (`EXPLAIN ANALYZE`'s "Actual Rows").
    static func relationReads(_ node: Any) -> [(relation: String, rowsPerLoop: Double)] {
        Self.planNodes(node).compactMap { node in
            (node["Relation Name"] as? String).map { ($0, (node["Actual Rows"] as? NSNumber)?.doubleValue ?? 0) }
        }
    }

    /// The loops of every init plan that is not a CTE (`InitPlan 1 (returns $10)`), in an `EXPLAIN ANALYZE` plan.
    static func initPlanLoops(_ node: Any) -> [Int] {
        Self.planNodes(node).compactMap { node in
            guard node["Parent Relationship"] as? String == "InitPlan",
                (node["Subplan Name"] as? String)?.hasPrefix("InitPlan") == true
            else { return nil }
            return node["Actual Loops"] as? Int ?? -1
        }
    }

    /// Every node's node type and relation, as `Seq Scan users`.
    static func scans(_ node: Any) -> [String] {
        Self.planNodes(node).compactMap { node in
            (node["Node Type"] as? String).map { $0 + (node["Relation Name"].map { " \($0)" } ?? "") }
        }
    }

    /// 10,000 drivers (`PLAN-1` … `PLAN-10000`), a third of whose 2,700 legs and rides are in flight, as in a young
    /// city's database; of the drivers 1-500, 2-11 have open legs and 300-304 active orders (no leg yet).
    static func cityInFlight(_ client: PostgresClient) async throws {
        // 2,700 legs: 1,990 of past rides, 10 of drivers in the delivery still driving (PLAN-2 … PLAN-11), 700 of
        // drivers outside it still driving (PLAN-5001 … PLAN-5700).
        try await client.query(
            PostgresQuery(
                unsafeSQL: Self.tenThousandDrivers + """
                    INSERT INTO order_legs (order_id, leg, device_id, trip_id, status, created_at, completed_at)
                    SELECT gen_random_uuid(), 'pickup',
                           'PLAN-' || CASE WHEN i > 2000 THEN 3000 + i ELSE i % 1000 + 1 END, 'trip-' || i,
                           CASE WHEN i <= 10 OR i > 2000 THEN 'active' ELSE 'completed' END,
                           now() - interval '1 hour',
                           CASE WHEN i <= 10 OR i > 2000 THEN NULL ELSE now() - interval '30 minutes' END
                    FROM generate_series(1, 2700) AS i
                    """
            ),
            logger: Self.logger
        )
        // 2,700 rides (a rider each): 1,995 finished, drivers 300-304 in the delivery on a ride now (accepted, no
        // leg yet), and 700 drivers outside it on a ride (PLAN-6001 … PLAN-6700).
        try await client.query(
            """
            WITH r AS (
                INSERT INTO users (role, name, phone)
                SELECT 'rider', 'Rita ' || i, '+4931' || lpad(i::text, 7, '0') FROM generate_series(1, 2700) AS i
                RETURNING id, name)
            INSERT INTO orders (rider_id, driver_id, status, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng)
            SELECT r.id, u.id, 'NEW', 52.52, 13.405, 52.51, 13.4
            FROM (SELECT id, substr(name, 6)::int AS n FROM r) AS r
            JOIN users u ON u.device_id = 'PLAN-' || CASE WHEN r.n <= 5 THEN 299 + r.n
                                                           WHEN r.n > 2000 THEN 4000 + r.n ELSE 1000 + r.n END
            """,
            logger: Self.logger
        )
        try await client.query(
            """
            UPDATE orders o SET status = CASE WHEN u.device_id IN ('PLAN-300', 'PLAN-301', 'PLAN-302', 'PLAN-303',
                'PLAN-304') OR substr(u.device_id, 6)::int > 6000 THEN 'ACCEPTED' ELSE 'CANCELLED' END
            FROM users u WHERE u.id = o.driver_id
            """,
            logger: Self.logger
        )
    }

    /// Locations of drivers 1-500 (their devices `PLAN-1` … `PLAN-500`), or of `drivers`, all applied, as the inbox
    /// statement's input.
    static func fiveHundredLocations(drivers: ClosedRange<Int> = 1...500) -> WebhookStatements.Inbox {
        let now = Date().timeIntervalSince1970
        let events = drivers.enumerated().map { offset, index in
            InboxEvent(
                index: offset, type: "location", deviceID: "PLAN-\(index)", latitude: 52.52, longitude: 13.405,
                recordedAt: now
            )
        }
        let elements = drivers.map { #"{"type": "location", "device_id": "PLAN-\#($0)"}"# }
        return WebhookStatements.Inbox(
            delivery: ReceivedDelivery(
                messageID: "plan", receivedAt: Date(), elements: "[" + elements.joined(separator: ",") + "]",
                events: events
            ),
            applied: Array(0..<drivers.count)
        )
    }

    /// The inbox statement's `EXPLAIN (ANALYZE, FORMAT JSON)` of `inbox` and the devices it stored, rolled back.
    static func explainInbox(
        _ inbox: WebhookStatements.Inbox,
        _ client: PostgresClient
    ) async throws -> (plan: String, stored: [String]) {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: Self.logger)
            try await connection.query(WebhookStatements.settings, logger: Self.logger)
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + WebhookStatements.Inbox.sql,
                    binds: try inbox.makeBindings()
                ),
                logger: Self.logger
            )
            var text = ""
            for try await line in rows.decode(String.self) { text += line }
            let devices = try await Self.storedDevices(connection)
            try await connection.query("ROLLBACK", logger: Self.logger)
            return (text, devices)
        }
    }

    /// The devices of the inbox's rows, in order, as the connection's transaction sees them.
    static func storedDevices(_ connection: PostgresConnection) async throws -> [String] {
        var devices: [String] = []
        for try await device in try await connection.query(
            "SELECT device_id FROM webhook_events ORDER BY device_id", logger: Self.logger
        ).decode(String.self) {
            devices.append(device)
        }
        return devices
    }

    /// The drivers of ``fiveHundredLocations()`` whose locations a drive reads.
    static let readByADrive = (Array(2...11) + Array(300...304)).map { "PLAN-\($0)" }.sorted()

    @Test(
        "0028, 0029: the inbox's generic plan keeps a drive's locations and drops idle drivers' by probes per event"
    )
    func inboxKeepsDrivesLocations() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            try await Self.cityInFlight(client)
            for table in ["users", "order_legs", "orders"] {
                try await client.query(PostgresQuery(unsafeSQL: "ANALYZE \(table)"), logger: Self.logger)
            }
            let inbox = Self.fiveHundredLocations()
            let (plan, stored) = try await Self.explainInbox(inbox, client)
            #expect(
                stored == Self.readByADrive,
                "the open legs' and active orders' devices, no idle driver's"
            )
            let planTree = try JSONSerialization.jsonObject(with: Data(plan.utf8))
            // v9: each kept row's payload parsed from its own text; v6-v8 parsed the delivery whole once for them, as
            // v9 does when the delivery is not cut.
            #expect(Self.initPlanLoops(planTree).allSatisfy { $0 == 0 }, "the delivery not parsed whole\n\(plan)")
            var whole = inbox
            whole.cutsPayloads = false
            let (wholePlan, wholeStored) = try await Self.explainInbox(whole, client)
            #expect(wholeStored == stored)
            let wholeTree = try JSONSerialization.jsonObject(with: Data(wholePlan.utf8))
            #expect(Self.initPlanLoops(wholeTree) == [1], "the delivery parsed once for its rows' payloads\n\(wholePlan)")
            let scans = Self.scans(planTree)
            // As `EXISTS` beside the other tests, the planner hashed a sequential scan of every user each delivery.
            for table in ["users", "order_legs", "orders"] {
                #expect(!scans.contains("Seq Scan \(table)"), "\(scans)\n\(plan)")
            }

            // 0029: the function's body, as it runs (sequential scans off), probes the open legs and active orders
            // per device, not read (710 and 705 rows here) and hashed.
            let setting = try await client.query(
                "SELECT proconfig::text FROM pg_proc WHERE proname = \(M0029DeviceDriveEnds.deviceFunction)",
                logger: Self.logger
            ).collect().first?.decode(String.self)
            #expect(setting == "{enable_seqscan=off}")
            let bodyPlan = try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: Self.logger)
                try await connection.query("SET LOCAL enable_seqscan = off", logger: Self.logger)
                var bindings = PostgresBindings()
                bindings.append(inbox.delivery.devices)
                var text = ""
                for try await line in try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + M0029DeviceDriveEnds.body,
                        binds: bindings
                    ),
                    logger: Self.logger
                ).decode(String.self) {
                    text += line
                }
                try await connection.query("ROLLBACK", logger: Self.logger)
                return text
            }
            let tree = try JSONSerialization.jsonObject(with: Data(bodyPlan.utf8))
            for read in Self.relationReads(tree) {
                #expect(read.rowsPerLoop <= 1, "\(read.relation): \(read.rowsPerLoop) rows a loop\n\(bodyPlan)")
            }
            #expect(Set(Self.relationReads(tree).map(\.relation)) == ["users", "orders", "order_legs"])
        }
    }

    @Test("v6: a delivery of idle drivers' locations sent whole is never parsed (its payloads have no row to go to)")
    func inboxParsesTheDeliveryOnlyForItsRows() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            try await Self.cityInFlight(client)
            // Drivers 12-299: known devices, no active order, no open leg (``readByADrive``).
            var inbox = Self.fiveHundredLocations(drivers: 12...299)
            inbox.cutsPayloads = false
            let (plan, stored) = try await Self.explainInbox(inbox, client)
            #expect(stored.isEmpty)
            // v5's `MATERIALIZED` CTE of the delivery was read by the join before any row was filtered.
            let loops = Self.initPlanLoops(try JSONSerialization.jsonObject(with: Data(plan.utf8)))
            #expect(loops == [0], "\(plan)")
        }
    }

    /// `EXECUTE inbox(…)` of ``fiveHundredLocations()``'s parameters as literals, for an SQL-level `PREPARE` of the
    /// inbox statement (the same plan cache as the protocol's, and `EXPLAIN` shows its cached plan).
    static func executeInbox(_ inbox: WebhookStatements.Inbox) throws -> String {
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        func array(_ values: [String], _ type: String) -> String { "ARRAY[" + values.joined(separator: ",") + "]::" + type }
        let delivery = inbox.delivery
        let locations = WebhookStatements.LocationColumns(delivery.locations, contentIDs: true)
        var arguments = [literal(""), literal(delivery.messageID), literal(try delivery.othersJSON())]
        arguments.append(array(inbox.applied.map(String.init), "int8[]"))
        arguments += [
            literal(ApplyWebhookDelivery.positionApplied), literal(ApplyWebhookDelivery.positionIgnored),
            literal(ApplyWebhookDelivery.statusIncomplete), literal(ApplyWebhookDelivery.statusIgnored),
        ]
        arguments.append(array(delivery.devices.map(literal), "text[]"))
        arguments.append("now()")
        arguments.append(array(locations.indexes.map(String.init), "int8[]"))
        arguments.append(array(locations.devices.map(literal), "text[]"))
        for column in [locations.latitudes, locations.longitudes, locations.recordedAt] {
            arguments.append(array(column.map { "\($0)" }, "float8[]"))
        }
        arguments.append(array(locations.contentIDs.map(literal), "text[]"))
        arguments.append(array((JSONArrayElements.split(delivery.elements) ?? []).map(literal), "text[]"))
        return "EXECUTE inbox(" + arguments.joined(separator: ", ") + ")"
    }

    /// The inbox statement's parameters' types, for an SQL-level `PREPARE`.
    static let inboxParameterTypes =
        "text, text, text, int8[], text, text, text, text, text[], timestamptz, int8[], text[], float8[], float8[], "
        + "float8[], text[], text[]"

    @Test("the inbox statement planned on an empty database probes by index once the city has grown")
    func inboxPlannedOnEmptyTablesProbes() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            // No autovacuum: its ANALYZE would have the connection plan anew, which a busy city waits minutes for.
            for table in ["users", "order_legs", "orders"] {
                try await client.query(
                    PostgresQuery(unsafeSQL: "ALTER TABLE \(table) SET (autovacuum_enabled = false)"),
                    logger: Self.logger
                )
            }
            let inbox = Self.fiveHundredLocations()
            let (scans, stored) = try await client.withConnection { connection in
                // As an API process's connection: its first delivery's generic plan, made on empty tables, is kept.
                try await connection.query("BEGIN", logger: Self.logger)
                try await connection.query(WebhookStatements.settings, logger: Self.logger)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "PREPARE inbox(\(Self.inboxParameterTypes)) AS " + WebhookStatements.Inbox.sql
                    ),
                    logger: Self.logger
                )
                try await connection.query(PostgresQuery(unsafeSQL: try Self.executeInbox(inbox)), logger: Self.logger)
                try await connection.query("ROLLBACK", logger: Self.logger)

                try await Self.cityInFlight(client)

                // The scans this backend has not yet reported, before and after: within one transaction block it
                // reports none, so the difference is the statement's (with the function's own statements).
                let counts: PostgresQuery = """
                    SELECT relname::text, seq_scan FROM pg_stat_xact_user_tables
                    WHERE relname IN ('users', 'order_legs', 'orders')
                    """
                func read() async throws -> [String: Int] {
                    var found: [String: Int] = [:]
                    for try await (table, count) in try await connection.query(counts, logger: Self.logger)
                        .decode((String, Int).self)
                    {
                        found[table] = count
                    }
                    return found
                }
                try await connection.query("BEGIN", logger: Self.logger)
                try await connection.query(WebhookStatements.settings, logger: Self.logger)
                let before = try await read()
                try await connection.query(PostgresQuery(unsafeSQL: try Self.executeInbox(inbox)), logger: Self.logger)
                let after = try await read()
                let devices = try await Self.storedDevices(connection)
                try await connection.query("ROLLBACK", logger: Self.logger)
                return (after.merging(before) { $0 - $1 }, devices)
            }
            #expect(stored == Self.readByADrive)
            // The same probes written into the statement (its generic plan made on the empty tables) read
            // `order_legs` once per event whose driver had no active order: 495 scans here.
            #expect(scans == ["users": 0, "order_legs": 0, "orders": 0], "sequential scans by the delivery")
        }
    }

    @Test("a delivery of 500 drivers finds its applied events without comparing every event with every moved driver")
    func appliedEventsWithoutCrossComparison() async throws {
        try await TestDatabase.shared.withDatabase(logger: Self.logger) { client, _ in
            try await BackendHarness.migrate(client, backend: Backend())
            // 10,000 drivers at the centre, analysed (as autovacuum has them in a running city).
            try await client.query(
                PostgresQuery(
                    unsafeSQL: Self.tenThousandDrivers + """
                        INSERT INTO driver_positions (driver_id, lat, lng, recorded_at)
                        SELECT id, 52.52, 13.405, now() - interval '1 minute' FROM d
                        """
                ),
                logger: Self.logger
            )
            try await client.query("ANALYZE users", logger: Self.logger)
            try await client.query("ANALYZE driver_positions", logger: Self.logger)

            // A delivery of 500 drivers' newest positions, a third of them moved.
            let now = Date().timeIntervalSince1970
            let events = (0..<500).map { index in
                InboxEvent(
                    index: index, type: "location", deviceID: "PLAN-\(index * 20 + 1)",
                    latitude: 52.52 + (index % 3 == 0 ? 0.001 : 0), longitude: 13.405, recordedAt: now
                )
            }
            let positions = WebhookStatements.Positions(latest: events, stillRefresh: .seconds(30))

            let plan = try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: Self.logger)
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + WebhookStatements.Positions.sql,
                        binds: try positions.makeBindings()
                    ),
                    logger: Self.logger
                )
                var text = ""
                for try await line in rows.decode(String.self) { text += line }
                try await connection.query("ROLLBACK", logger: Self.logger)
                return text
            }
            let removed = Self.rowsRemovedByJoinFilters(try JSONSerialization.jsonObject(with: Data(plan.utf8)))
            // The v1 statement joined the upsert's returned drivers with the events in a nested loop: 249,500 here.
            #expect(removed <= 500, "\(plan)")

            // And the statement still answers every applied event (all 500: each is its driver's newest position).
            let applied = try await client.withConnection { connection in
                try await connection.rows(positions, logger: Self.logger)
            }
            #expect(applied.sorted() == Array(0..<500))
        }
    }
}
