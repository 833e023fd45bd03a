import Foundation
import PostgresNIO

extension DeliveryAdmin {
    /// One function's backlog, as `/metrics` reports it.
    public struct Backlog: Sendable, Hashable {
        /// The function.
        public var function: String
        /// Deliveries waiting to run (due now or retrying later), not leased by a worker.
        public var pending: Int
        /// Deliveries a worker holds a lease on.
        public var running: Int
        /// Dead-lettered deliveries (retries exhausted), until replayed or deleted.
        public var dead: Int
        /// Seconds since the oldest pending or running delivery was committed; 0 without one.
        public var oldestPendingAge: Double
    }

    /// Every registered function's backlog (zero rows included, so a gauge drops to 0 rather than vanishing) and
    /// that of any function with deliveries but no registration, read from the database at the moment of asking.
    ///
    /// Why from the database rather than from counters kept in memory: the dead count is the table's, so it
    /// survives restarts and counts what other workers dead-lettered. It costs one aggregate over the deliveries
    /// table (pending and dead rows only; done ones move to `trigger_runtime.done`) per scrape.
    public func backlog() async throws -> [Backlog] {
        let rows = try await self.client.query(
            """
            SELECT coalesce(f.name, d.function_name),
                   count(d.id) FILTER (WHERE d.status = 'ready' AND d.lease_token IS NULL)::int8,
                   count(d.id) FILTER (WHERE d.status = 'ready' AND d.lease_token IS NOT NULL)::int8,
                   count(d.id) FILTER (WHERE d.status = 'dead')::int8,
                   coalesce(extract(epoch FROM now() - min(d.committed_at) FILTER (WHERE d.status = 'ready')), 0)::float8
            FROM trigger_runtime.functions f FULL JOIN trigger_runtime.deliveries d ON d.function_name = f.name
            GROUP BY 1 ORDER BY 1
            """,
            logger: self.logger
        )
        var result: [Backlog] = []
        for try await (function, pending, running, dead, age) in rows.decode((String, Int64, Int64, Int64, Double).self)
        {
            result.append(
                Backlog(
                    function: function,
                    pending: Int(pending),
                    running: Int(running),
                    dead: Int(dead),
                    oldestPendingAge: age
                )
            )
        }
        return result
    }
}
