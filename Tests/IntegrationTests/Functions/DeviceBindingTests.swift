import Foundation
import Functions
import HyperTrackAPI
import HyperTrackEmulator
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

/// Issue 17's device hijack, against the HyperTrack emulator: a driver's `device_id` is bound to their account, and
/// another account naming it is refused before anything is written, so `registerDriverDevice` never renames it.
@Suite("Functions: a driver's device is bound to their account", .timeLimit(.minutes(10)))
struct DeviceBindingTests {
    static func registrations(_ client: PostgresClient) async throws -> Int {
        let rows = try await client.query(
            """
            SELECT (SELECT count(*) FROM trigger_runtime.deliveries WHERE function_name = 'registerDriverDevice')
                 + (SELECT count(*) FROM trigger_runtime.done WHERE function_name = 'registerDriverDevice')
            """,
            logger: BackendHarness.logger
        )
        var total = 0
        for try await count in rows.decode(Int.self) { total = count }
        return total
    }

    static func deviceName(_ tracking: HyperTrackClient, _ id: String) async throws -> String? {
        try await tracking.device(id: id).deviceInfo?.name
    }

    @Test("a second account cannot take a bound device, and the emulator's device keeps its name; a new phone unbinds")
    func binding() async throws {
        let configuration = Backend.Configuration(webhook: .init(secret: EmulatorRideTests.secret))
        try await EmulatorRideTests.withEmulatorBackend(configuration) { h, emulator, tracking in
            await emulator.registerDevice(id: "DEV-A", longitude: 13.405, latitude: 52.52)
            await emulator.registerDevice(id: "DEV-B", longitude: 13.405, latitude: 52.52)
            let dana = try await h.api.driver("Dana", device: "DEV-A", online: false)
            try await h.eventually("DEV-A named Dana") { try await Self.deviceName(tracking, "DEV-A") == "Dana" }
            let otto = try await h.api.signIn(phone: APIClient.newPhone(), role: "driver")
            let before = try await Self.registrations(h.client)
            let profile: JSONValue = ["name": "Otto", "device_id": "DEV-A", "car": ["model": "Golf", "plate": "B 2"]]
            let taken = try await h.api.send(.PUT, "/v1/me", json: profile, token: otto.accessToken)
            APITests.expectProblem(taken, 409, mentioning: "device_id")
            #expect(try await h.api.send(.GET, "/v1/me", token: otto.accessToken).json["device_id"] == .null)
            #expect(try await Self.registrations(h.client) == before, "the refused write recorded no event")
            #expect(try await Self.deviceName(tracking, "DEV-A") == "Dana")
            // Dana moves to a new phone: DEV-A is free again, and Otto can bind it.
            let moved: JSONValue = [
                "name": "Dana", "device_id": "DEV-B", "car": ["model": "Prius", "plate": "B-RS 42"],
            ]
            #expect(try await h.api.send(.PUT, "/v1/me", json: moved, token: dana.token).status == 200)
            let bound = try await h.api.send(.PUT, "/v1/me", json: profile, token: otto.accessToken)
            #expect(bound.status == 200 && bound.json["device_id"] == "DEV-A" && bound.json["car"]["plate"] == "B 2")
            // The reply is the profile as written: what a read of it shows.
            #expect(try await h.api.send(.GET, "/v1/me", token: otto.accessToken).json == bound.json)
            try await h.eventually("DEV-A named Otto") { try await Self.deviceName(tracking, "DEV-A") == "Otto" }
            try await h.eventually("DEV-B named Dana") { try await Self.deviceName(tracking, "DEV-B") == "Dana" }
        }
    }
}
