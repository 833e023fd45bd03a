import Foundation
import Logging
import PostgresNIO

/// What PostgreSQL alone does on this machine: the floors the runtime's numbers are compared with.
enum Floors {
    /// NOTIFY → LISTEN latency at `rate` notifications per second for `duration`, from just before the NOTIFY is
    /// sent to its arrival on the listening connection.
    static func notifyRoundTrip(_ database: BenchDatabase, rate: Int, duration: Duration) async throws -> LatencySummary {
        let total = Int(Double(rate) * duration.seconds)
        return try await database.withConnection { listener in
            try await listener.listen(on: "bench_floor") { notifications in
                try await withThrowingTaskGroup(of: [Int64].self) { group in
                    group.addTask {
                        var samples: [Int64] = []
                        samples.reserveCapacity(total)
                        for try await notification in notifications {
                            guard let sent = Int64(notification.payload) else { continue }
                            samples.append(monotonicNanoseconds() - sent)
                            if samples.count == total { break }
                        }
                        return samples
                    }
                    group.addTask {
                        try await database.withConnection { notifier in
                            try await Pacer.run(rate: rate, count: total) {
                                let sent = String(monotonicNanoseconds())
                                try await notifier.query("SELECT pg_notify('bench_floor', \(sent))", logger: database.logger)
                            }
                        }
                        return []
                    }
                    var samples: [Int64] = []
                    for try await result in group { samples += result }
                    return LatencySummary(nanoseconds: samples)
                }
            }
        }
    }

    /// UPDATEs per second from `writers` connections against a table whose trigger inserts one outbox row and
    /// notifies (`withCapture`), or against the same table without a trigger.
    static func updateRate(
        _ database: BenchDatabase,
        withCapture: Bool,
        writers: Int,
        duration: Duration
    ) async throws -> Double {
        try await database.withConnection { connection in
            for statement in [
                "DROP TABLE IF EXISTS floor_rows, floor_outbox",
                "CREATE TABLE floor_rows (id int PRIMARY KEY, v bigint NOT NULL DEFAULT 0)",
                "INSERT INTO floor_rows (id) SELECT generate_series(1, 1000)",
                """
                CREATE TABLE floor_outbox (id bigserial PRIMARY KEY, function text NOT NULL, table_name text NOT NULL,
                  document_key text NOT NULL, old_row jsonb, new_row jsonb, created_at timestamptz NOT NULL DEFAULT now())
                """,
                """
                CREATE OR REPLACE FUNCTION floor_capture() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  INSERT INTO floor_outbox (function, table_name, document_key, old_row, new_row)
                  VALUES ('noop', TG_TABLE_NAME, NEW.id::text, to_jsonb(OLD), to_jsonb(NEW));
                  PERFORM pg_notify('bench_floor_capture', '');
                  RETURN NULL;
                END $$
                """,
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: database.logger)
            }
            if withCapture {
                try await connection.query(
                    "CREATE TRIGGER floor_capture AFTER UPDATE ON floor_rows FOR EACH ROW EXECUTE FUNCTION floor_capture()",
                    logger: database.logger
                )
            }
        }
        return try await Self.hammer(database, writers: writers, duration: duration) { connection, writer, iteration in
            let id = writer * 500 + iteration % 500 + 1
            try await connection.query("UPDATE floor_rows SET v = v + 1 WHERE id = \(id)", logger: database.logger)
        }
    }

    /// Drains a backlog of `count` rows with the minimal claim loop (SKIP LOCKED, batches of 32, delete).
    static func rawClaimDrain(_ database: BenchDatabase, count: Int) async throws -> Double {
        try await database.withConnection { connection in
            for statement in [
                "DROP TABLE IF EXISTS floor_queue",
                "CREATE TABLE floor_queue (id bigserial PRIMARY KEY, payload jsonb NOT NULL)",
                "INSERT INTO floor_queue (payload) SELECT jsonb_build_object('n', n) FROM generate_series(1, \(count)) n",
                "VACUUM ANALYZE floor_queue",
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: database.logger)
            }
            let start = monotonicNanoseconds()
            var drained = 0
            while true {
                let rows = try await connection.query(
                    """
                    DELETE FROM floor_queue WHERE id IN (
                      SELECT id FROM floor_queue ORDER BY id LIMIT 32 FOR UPDATE SKIP LOCKED)
                    RETURNING id, payload
                    """,
                    logger: database.logger
                )
                var batch = 0
                for try await _ in rows { batch += 1 }
                if batch == 0 { break }
                drained += batch
            }
            let seconds = Double(monotonicNanoseconds() - start) / 1e9
            return Double(drained) / seconds
        }
    }

    /// Runs `operation` as fast as possible on `writers` connections for `duration`; returns operations/second.
    static func hammer(
        _ database: BenchDatabase,
        writers: Int,
        duration: Duration,
        operation: @escaping @Sendable (PostgresConnection, Int, Int) async throws -> Void
    ) async throws -> Double {
        let deadline = monotonicNanoseconds() + Int64(duration.seconds * 1e9)
        let start = monotonicNanoseconds()
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    try await database.withConnection { connection in
                        var iteration = 0
                        while monotonicNanoseconds() < deadline {
                            try await operation(connection, writer, iteration)
                            iteration += 1
                        }
                        return iteration
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(total) / (Double(monotonicNanoseconds() - start) / 1e9)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// Calls an operation at a steady rate on a fixed schedule (no drift), `count` times.
enum Pacer {
    static func run(rate: Int, count: Int, _ operation: () async throws -> Void) async throws {
        let interval = 1_000_000_000 / Int64(rate)
        let start = monotonicNanoseconds()
        for index in 0..<count {
            let due = start + Int64(index) * interval
            let wait = due - monotonicNanoseconds()
            if wait > 0 { try await Task.sleep(for: .nanoseconds(wait)) }
            try await operation()
        }
    }
}
