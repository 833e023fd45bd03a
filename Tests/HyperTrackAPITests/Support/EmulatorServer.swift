import HyperTrackEmulator
import Logging
import ServiceLifecycle
import TriggerRuntime

/// The project's HyperTrack emulator as a ``ServerUnderTest``, on a clock that runs 50 times faster than real
/// time, so completions and Nearby searches finish while the client polls.
struct EmulatorServer: ServerUnderTest {
    let emulator: HyperTrackEmulator
    let accountID: String
    let secretKey: String

    var name: String { "HyperTrack emulator" }

    var baseURL: String {
        get async { (try? await self.emulator.baseURL()) ?? "http://127.0.0.1:1" }
    }

    func seedDevice(id: String, name: String, latitude: Double, longitude: Double) async throws {
        await self.emulator.registerDevice(id: id, name: name, longitude: longitude, latitude: latitude)
    }

    func finishCompletion(tripID: String) async throws {
        await self.emulator.advanceClock(by: 60)
    }

    /// Runs `body` against a fresh emulator on 127.0.0.1.
    static func withServer(_ body: (EmulatorServer) async throws -> Void) async throws {
        var configuration = HyperTrackEmulator.Configuration()
        configuration.accountID = "client-suite"
        configuration.secretKey = "client-suite-secret"
        configuration.clock = .scaled(rate: 50)
        configuration.options.pageSize = 2
        let logger = Logger(label: "hypertrack-emulator") { _ in SwiftLogNoOpLogHandler() }
        let emulator = try HyperTrackEmulator(configuration: configuration, logger: logger)
        try await ServiceGroup.withRunning([emulator], logger: logger) {
            _ = try await emulator.baseURL()
            try await body(EmulatorServer(emulator: emulator, accountID: configuration.accountID, secretKey: configuration.secretKey))
        }
    }
}
