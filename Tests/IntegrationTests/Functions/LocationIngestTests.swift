import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import LocalStack
import PostgresNIO
import Testing

/// The location path under the worker's default batching (several deliveries per transaction, several lanes).
@Suite("Functions: location events through the worker", .timeLimit(.minutes(5)))
struct LocationIngestTests {
    static func latitude(device: Int, delivery: Int) -> Double {
        52.5 + Double(device) / 100 + Double(delivery) / 10_000
    }

    @Test("each device's positions are handled one at a time and in order, whatever the batching: every one applies")
    func inOrderPerDevice() async throws {
        try await RideHarness.with(tracking: FakeTripTracking()) { h in
            let devices = (0..<8).map { "LOC-\($0)" }
            for device in devices { _ = try await h.api.driver("Dana", device: device) }
            // Deliveries in time order, each with one position of every device, the devices in a different order
            // each time (rotated, every other one reversed): keyed by row, two lanes took the same drivers' rows
            // in opposite orders (deadlocks) and a newer position could be handled before an older one.
            let start = Date().addingTimeInterval(-60)
            let deliveries = 24
            for k in 0..<deliveries {
                let time = ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(k)))
                let rotation = k % devices.count
                var order: [Int] = Array(rotation..<devices.count) + Array(0..<rotation)
                if k % 2 == 1 { order.reverse() }
                var events: [JSONValue] = []
                for index in order {
                    let lat: Double = Self.latitude(device: index, delivery: k)
                    events.append(RideHarness.locationEvent(device: devices[index], lat: lat, lng: 13.4, at: time))
                }
                #expect(try await h.webhook(events).status == 202)
            }
            let total = deliveries * devices.count
            try await h.eventually("every event handled") {
                try await DispatchTests.int(h, "SELECT count(*)::int FROM webhook_events WHERE processed_at IS NOT NULL")
                    == total
            }
            let outcomes = try await h.client.query(
                "SELECT outcome, count(*)::int FROM webhook_events GROUP BY outcome",
                logger: BackendHarness.logger
            )
            var counts: [String: Int] = [:]
            for try await (outcome, count) in outcomes.decode((String?, Int).self) { counts[outcome ?? "-"] = count }
            #expect(counts == ["applied: position": total])
            for (index, device) in devices.enumerated() {
                let rows = try await h.client.query(
                    """
                    SELECT p.lat FROM driver_positions p JOIN users u ON u.id = p.driver_id
                    WHERE u.device_id = \(device)
                    """,
                    logger: BackendHarness.logger
                )
                var lat: Double?
                for try await value in rows.decode(Double.self) { lat = value }
                let expected = Self.latitude(device: index, delivery: deliveries - 1)
                #expect(abs((lat ?? 0) - expected) < 1e-9, "\(device)")
            }
            #expect(
                try await DispatchTests.int(h, "SELECT count(*)::int FROM trigger_runtime.deliveries WHERE status = 'dead'")
                    == 0
            )
        }
    }
}
