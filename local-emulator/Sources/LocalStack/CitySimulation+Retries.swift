import Foundation
import PostgresNIO

extension CitySimulation {
    /// Sends until the API answers below 500, waiting ``Configuration/orderPollInterval`` after a 5xx or a failed
    /// connection (the API or its database restarting under chaos), as an app retries; only cancellation (the end of
    /// the run) stops it. The failed attempts are counted as errors by ``SimulationClient``.
    func persistently(_ send: () async throws -> StackAPI.Reply) async throws -> StackAPI.Reply {
        while true {
            do {
                let reply = try await send()
                if reply.status < 500 { return reply }
            } catch {
                if Task.isCancelled { throw error }
            }
            // The app's retry pause: its own clock.
            try await Task.sleep(for: self.configuration.orderPollInterval)
        }
    }

    /// The rider's order that is not final, if any (a booking whose 201 was lost to a restart left it behind).
    func openOrder(of rider: String) async throws -> String? {
        guard let id = UUID(uuidString: rider) else { return nil }
        let rows = try await self.database.query(
            """
            SELECT id FROM orders WHERE rider_id = \(id) AND status NOT IN ('COMPLETED', 'CANCELLED')
            ORDER BY created_at DESC LIMIT 1
            """
        )
        if let row = rows.first {
            let order = try row.decode(UUID.self)
            return order.uuidString
        }
        return nil
    }
}
