import BackendServer
import Foundation
import Functions
import HummingbirdTesting
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Prometheus
import Testing

/// Code delivery that cannot deliver: no provider configured (503, nothing recorded) and a provider that does not
/// answer (502: the code was recorded and counts against the phone's hourly limit).
@Suite("Functions: sign-in codes without a working delivery", .timeLimit(.minutes(10)))
struct CodeDeliveryFailureTests {
    @Test("no delivery is 503 and records nothing; an unreachable SMS webhook is 502")
    func failures() async throws {
        try await BackendHarness.with { h in
            let cases: [((any CodeDelivery)?, Int, Int)] = [
                (nil, 503, 0),
                (WebhookCodeDelivery(url: "http://127.0.0.1:1/sms", secret: "s"), 502, 1),
            ]
            for (delivery, status, recorded) in cases {
                var configuration = h.backend.configuration
                configuration.auth.delivery = delivery
                let composition = BackendHarness.composition(
                    .api,
                    backend: configuration,
                    client: h.client,
                    codeOutbox: false
                )
                let application = try composition.application(tracking: nil, metrics: PrometheusCollectorRegistry())
                try await application.test(.router) { client in
                    let phone = APIClient.newPhone()
                    let reply = try await APIClient(client: client).send(
                        .POST,
                        "/v1/auth/code",
                        json: ["phone": .string(phone), "role": "rider"]
                    )
                    APITests.expectProblem(reply, status)
                    let rows = try await h.client.query(
                        "SELECT count(*)::int8 FROM auth_codes WHERE phone = \(phone)",
                        logger: BackendHarness.logger
                    )
                    for try await count in rows.decode(Int.self) { #expect(count == recorded) }
                }
            }
        }
    }
}
