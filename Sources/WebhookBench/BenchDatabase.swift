import BenchSupport
import Foundation
import Logging
import PostgresNIO

/// The benchmark's own look at the database: the drivers it reports for, the worker's backlog, and what the busy
/// backends wait on.
struct BenchDatabase: Sendable {
    let client: PostgresClient
    let logger: Logger

    static func deviceID(_ driver: Int) -> String { "webhook-bench-device-\(driver)" }

    /// `count` drivers with device ids, online and available. Written with the capture triggers off
    /// (`session_replication_role = replica`): registering their devices on HyperTrack is not what is measured,
    /// and no worker should spend the run on it. The first `driving` of them are on a drive: each has an open pickup
    /// leg, so the inbox keeps their locations (a drive reads them, ``M0028DriveLocations``) as it does in a city.
    func addDrivers(_ count: Int, driving: Int) async throws {
        let logger = self.logger
        try await self.client.withConnection { connection in
            try await connection.query("SET session_replication_role = replica", logger: logger)
            try await connection.query(
                """
                INSERT INTO users (role, name, phone, device_id, car_model, car_plate, available, device_status,
                                   phone_verified_at)
                SELECT 'driver', 'Driver ' || n, '+4916' || lpad(n::text, 8, '0'), 'webhook-bench-device-' || n,
                       'Bench', 'B-' || n, true, 'active', now()
                FROM generate_series(0, \(count - 1)) AS n
                """,
                logger: logger
            )
            if driving > 0 {
                try await connection.query(
                    """
                    INSERT INTO order_legs (order_id, leg, device_id, trip_id, status)
                    SELECT gen_random_uuid(), 'pickup', 'webhook-bench-device-' || n, 'webhook-bench-trip-' || n,
                           'active'
                    FROM generate_series(0, \(driving - 1)) AS n
                    """,
                    logger: logger
                )
            }
            try await connection.query("RESET session_replication_role", logger: logger)
        }
    }

    /// Counts of the inbox's applied positions and of the deliveries that fill and read it (`applyWebhookDelivery`, `onTripWebhook`).
    struct Counts: Sendable {
        var pending: Int
        var dead: Int
        var positions: Int
    }

    func counts() async throws -> Counts {
        let rows = try await self.client.query(
            """
            SELECT (SELECT count(*) FROM trigger_runtime.deliveries
                    WHERE function_name IN ('applyWebhookDelivery', 'onTripWebhook') AND status = 'ready')::int8,
                   (SELECT count(*) FROM trigger_runtime.deliveries WHERE status = 'dead')::int8,
                   (SELECT count(*) FROM webhook_events WHERE outcome = 'applied: position')::int8
            """,
            logger: self.logger
        )
        var counts = Counts(pending: 0, dead: 0, positions: 0)
        for try await (pending, dead, positions) in rows.decode((Int, Int, Int).self) {
            counts = Counts(pending: pending, dead: dead, positions: positions)
        }
        return counts
    }

    /// Waits until `onTripWebhook` has nothing pending; returns how long that took, or `nil` after `timeout`.
    func drain(timeout: Duration) async throws -> Duration? {
        let start = ContinuousClock.now
        while true {
            if try await self.counts().pending == 0 { return ContinuousClock.now - start }
            guard ContinuousClock.now - start < timeout else { return nil }
            // The poll interval: the queue belongs to another process and nothing notifies the benchmark.
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// One look at the busy client backends: what each waits on (`CPU` when on a core or in a wait PostgreSQL does
    /// not name), and in which statement (the API's intake INSERT, the worker's claim, position upsert or outcome
    /// update, or the statement's first 40 characters: `COMMIT` is either process's).
    func waits() async throws -> [String] {
        let rows = try await self.client.query(
            """
            SELECT CASE WHEN query LIKE '%INSERT INTO webhook_events%' THEN 'intake insert'
                        WHEN query LIKE '%trigger_runtime.claim%' THEN 'claim'
                        WHEN query LIKE '%INSERT INTO driver_positions%' THEN 'position upsert'
                        WHEN query LIKE '%UPDATE webhook_events%' THEN 'outcome update'
                        ELSE left(regexp_replace(query, '\\s+', ' ', 'g'), 40) END,
                   coalesce(wait_event_type || ':' || wait_event, 'CPU')
            FROM pg_stat_activity a
            WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid()
            """,
            logger: self.logger
        )
        var waits: [String] = []
        for try await (who, wait) in rows.decode((String, String).self) { waits.append("\(who) \(wait)") }
        return waits
    }
}
