import Foundation
import HyperTrackEmulator
import Logging
import ServiceLifecycle
import Testing
import TriggerRuntime

// Ten minutes, as every integration suite's limit (a backstop against a hang): the round trip takes under a second
// alone, but 110–120 s in the loaded fresh-clone suite (11th session: 117 s of the former 2-minute limit in a green
// run, over it in another).
@Suite("State export/import and running as a Service", .timeLimit(.minutes(10)))
struct StateTests {
    static let logger = Logger(label: "state-test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString)").path
    }

    @Test("an imported state answers exactly like the exported one, and keeps simulating identically")
    func roundTrip() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (tripID, before, after) = try await withEmulator { emulator, client, _ in
            await emulator.registerDevice(id: "D1", name: "Ann", longitude: -122.42, latitude: 37.77)
            let trip = try await client.createTrip(device: "D1", to: (-122.40, 37.78), metadata: #"{"order_id":"A"}"#)
            let tripID = trip["trip_id"] as! String
            try await client.advance(60)
            try await emulator.exportState(to: directory)
            let before = try await client.get("/trips/\(tripID)").body
            try await client.advance(600)
            return (tripID, before, try await client.get("/trips/\(tripID)").body)
        }
        try await withEmulator { emulator, client, _ in
            try await emulator.importState(from: directory)
            #expect(try await client.get("/trips/\(tripID)").body == before)
            #expect(try await client.get("/devices/D1").object["device_id"] as? String == "D1")
            try await client.advance(600)
            #expect(try await client.get("/trips/\(tripID)").body == after)
        }
    }

    @Test("importing a missing or foreign file fails clearly and changes nothing")
    func badImport() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withEmulator { emulator, client, _ in
            await emulator.registerDevice(id: "keep", longitude: 1, latitude: 2)
            let missing = await #expect(throws: HyperTrackEmulatorError.self) {
                try await emulator.importState(from: directory)
            }
            #expect(missing?.code == .stateImport)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(#"{"hello":"world"}"#.utf8).write(to: URL(fileURLWithPath: directory + "/state.json"))
            let error = await #expect(throws: HyperTrackEmulatorError.self) {
                try await emulator.importState(from: directory)
            }
            #expect(error?.code == .stateImport)
            #expect(try await client.get("/devices/keep").status == 200)
        }
    }

    @Test("as a Service: graceful shutdown exports, the next run imports")
    func serviceExportsOnShutdown() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = HyperTrackEmulator.Configuration()
        configuration.options.exportDirectory = directory
        let first = try HyperTrackEmulator(configuration: configuration, logger: Self.logger)
        try await ServiceGroup.withRunning([first], logger: Self.logger) {
            let client = APIClient(baseURL: try await first.baseURL())
            _ = try await client.post("/_emulator/devices", #"{"device_id":"S1","position":[4.9,52.37]}"#)
        }
        #expect(FileManager.default.fileExists(atPath: directory + "/state.json"))

        var second = HyperTrackEmulator.Configuration()
        second.options.importDirectory = directory
        let emulator = try HyperTrackEmulator(configuration: second, logger: Self.logger)
        try await ServiceGroup.withRunning([emulator], logger: Self.logger) {
            let client = APIClient(baseURL: try await emulator.baseURL())
            let device = try await client.get("/devices/S1")
            #expect(device.status == 200)
            let coordinates = ((device.object["location"] as? [String: Any])?["geometry"] as? [String: Any])?["coordinates"]
            #expect(coordinates as? [Double] == [4.9, 52.37])
        }
    }

    static func configurationError(_ configuration: HyperTrackEmulator.Configuration) -> HyperTrackEmulatorError.Code? {
        do {
            _ = try HyperTrackEmulator(configuration: configuration, logger: logger)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("invalid configurations are refused")
    func invalidConfiguration() {
        var configuration = HyperTrackEmulator.Configuration()
        configuration.speed = 0
        #expect(Self.configurationError(configuration) == .invalidConfiguration)
        configuration = HyperTrackEmulator.Configuration()
        configuration.clock = .scaled(rate: -1)
        #expect(Self.configurationError(configuration) == .invalidConfiguration)
        configuration = HyperTrackEmulator.Configuration()
        configuration.webhookURL = "ftp://x"
        #expect(Self.configurationError(configuration) == .invalidConfiguration)
    }
}
