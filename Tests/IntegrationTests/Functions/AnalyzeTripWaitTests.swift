import Foundation
import FunctionsTesting
import HyperTrackAPI
import NIOHTTP1
import PostgresNIO
import Testing
import TriggerRuntime

@testable import Functions

/// `analyzeTrip` builds a trip from the inbox's locations; a delivery received during the drive and not applied yet
/// (``ApplyWebhookDelivery``) holds some of them, so the analysis waits for it.
@Suite("Functions: analyzeTrip waits for the deliveries received during its drive", .timeLimit(.minutes(10)))
struct AnalyzeTripWaitTests {
    /// Runs `analyzeTrip` on the leg's completion in a transaction, as a worker would at `attempt`; rolls it back
    /// unless `commit`.
    static func analyze(_ h: BackendHarness, leg: LegRow, attempt: Int, commit: Bool) async throws {
        try await h.client.withConnection { connection in
            try await connection.query("BEGIN", logger: BackendHarness.logger)
            do {
                var before = leg
                before.status = .completing
                let context = FunctionContext(
                    eventID: 1, functionName: AnalyzeTrip.name, operation: .update, table: "order_legs",
                    documentKey: leg.id.uuidString, commitTime: Date(), attempt: attempt,
                    logger: BackendHarness.logger, transaction: connection
                )
                try await AnalyzeTrip(trips: .init()).handle(makeChange(before: before, after: leg), context: context)
            } catch {
                try await connection.query("ROLLBACK", logger: BackendHarness.logger)
                throw error
            }
            try await connection.query(commit ? "COMMIT" : "ROLLBACK", logger: BackendHarness.logger)
        }
    }

    @Test("a delivery received before the drive ended and not applied: retried until it is, the last attempt goes on")
    func waitsForReceipts() async throws {
        let configuration = Backend.Configuration(webhook: .init(secret: "whsec-test", apply: .worker))
        try await BackendHarness.with(configuration: configuration) { h in
            _ = try await h.api.driver("Dana", device: "WAIT")
            let legID = UUID()
            try await h.client.query(
                """
                INSERT INTO order_legs (id, order_id, leg, device_id, trip_id, status, created_at)
                VALUES (\(legID), gen_random_uuid(), 'pickup', 'WAIT', 'WAIT-TRIP', 'active', now() - interval '10 minutes')
                """,
                logger: BackendHarness.logger
            )
            // Two locations during the drive, received (202), not applied: no worker runs here.
            let time = Date()
            let events: [JSONValue] = [0, 1].map { index in
                RideHarness.locationEvent(
                    device: "WAIT", lat: 52.52 + Double(index) / 100, lng: 13.405,
                    at: ISO8601DateFormatter().string(from: time.addingTimeInterval(Double(index)))
                )
            }
            let body = try JSONEncoder().encode(JSONValue.array(events))
            let reply = try await h.api.send(
                .POST, "/v1/hypertrack/webhooks",
                headers: [
                    ("x-hypertrack-signature", HMACWebhookSignatureVerifier.signature(for: body, secret: "whsec-test")),
                    ("x-amz-sns-message-id", "wait-1"),
                ],
                rawBody: body
            )
            #expect(reply.status == 202)
            try await h.client.query(
                "UPDATE order_legs SET status = 'completed', completed_at = now() WHERE id = \(legID)",
                logger: BackendHarness.logger
            )
            let leg = LegRow(id: legID, orderID: UUID(), leg: .pickup, deviceID: "WAIT", tripID: "WAIT-TRIP", status: .completed)

            await #expect(throws: FunctionsError.webhooksWaiting(by: Date())) {
                try await Self.analyze(h, leg: leg, attempt: 1, commit: false)
            }
            // The last attempt does not wait: it stores the trip from what is applied (rolled back here).
            try await Self.analyze(h, leg: leg, attempt: AnalyzeTrip.options.maxAttempts, commit: false)

            #expect(try await h.applyWebhooks() == 1)
            try await Self.analyze(h, leg: leg, attempt: 2, commit: true)
            let points = try await h.client.query(
                "SELECT point_count FROM driver_trips WHERE leg_id = \(legID)",
                logger: BackendHarness.logger
            ).collect().map { try $0.decode(Int.self) }
            #expect(points == [2], "both locations of the drive")
        }
    }
}
